//! JUnit XML for CI.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::grading_name;
use super::view::View;
use crate::status::Status;

/// JUnit XML: one `testsuite` per corpus suite that has results (the implementation's own
/// suites first, as every format lists them), one `testcase` per case (name = id, classname =
/// `suite/family`, sorted by id). Unexpected outcomes are `failure`s (message and type = the
/// status; text = detail, then the captured stderr); unsupported, skipped and expected failures
/// are `skipped` (an expected failure's text starts with the adapter's reason), counted in the
/// suite's `skipped` attribute. Each suite's properties carry the per-suite summary. Every string
/// from the results file goes through the workspace's XML pre-pass first (control and
/// bidirectional characters shown as `\u{…}`, [`xml`]); quick-junit then escapes the markup.
pub(crate) fn render(view: &View) -> String {
    let h = view.header;
    let v = &view.verdict;
    let columns = view.suite_columns();
    let mut report = Report::new("agentconf");
    for summary in &view.suites {
        let suite = summary.suite;
        let mut lines: Vec<_> = view.results.iter().filter(|r| r.suite == suite).collect();
        lines.sort_by(|a, b| a.id.cmp(&b.id));
        let mut ts = TestSuite::new(suite.as_str());
        ts.add_property(("implementation", xml(&h.implementation.name).as_str()));
        // The name is the claimant's words; what ran is the executable's digest beside it.
        ts.add_property(("implementation_named_by", "the claimant"));
        if let Some(d) = &h.implementation.executable_sha256 {
            ts.add_property(("executable_sha256", d.as_str()));
        }
        ts.add_property(("corpus_digest", h.corpus_digest.as_str()));
        ts.add_property(("suite_version", h.suite_version.as_str()));
        ts.add_property(("grading", grading_name(h.grading).as_str()));
        // The verdict of the whole file, the same words as every other format.
        ts.add_property(("verdict", v.headline().as_str()));
        ts.add_property(("scope", v.scope.as_str()));
        for reason in &v.partial {
            ts.add_property(("scope", reason.as_str()));
        }
        // The per-suite summary, as every format gives it.
        for c in &columns {
            ts.add_property((
                c.heading.replace(' ', "_").as_str(),
                (c.count)(summary).to_string().as_str(),
            ));
        }
        for r in lines {
            let name = r.status.name();
            let status = if r.status == Status::Pass {
                TestCaseStatus::success()
            } else if r.status.is_unexpected() {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(name).set_type(name);
                let mut text = xml(&r.detail);
                if !r.stderr.is_empty() {
                    text.push_str("\n\nstderr:\n");
                    text.push_str(&xml(&r.stderr));
                }
                s.set_description(text);
                s
            } else {
                // Unsupported, skipped, or an expected failure (whose message gives the adapter's
                // reason): none passes, none fails the run.
                let mut s = TestCaseStatus::skipped();
                match r.xfail_reason.as_deref() {
                    Some(reason) => s.set_message(format!("{name}: {}", xml(reason))),
                    None => s.set_message(name),
                };
                s.set_type(name);
                if !r.detail.is_empty() {
                    s.set_description(xml(&r.detail));
                }
                s
            };
            let mut tc = TestCase::new(xml(&r.id), status);
            if r.status == Status::Pass {
                if let Some(why) = view.why_uncredited(&r.id) {
                    tc.set_system_out(format!("uncredited: {}", xml(why)));
                }
            }
            tc.set_classname(format!("{}/{}", suite.as_str(), xml(&r.family)));
            tc.set_time(Duration::from_millis(r.duration_ms));
            ts.add_test_case(tc);
        }
        // quick-junit counts skipped cases as `disabled`; CI tools read `skipped`.
        let skipped = std::mem::take(&mut ts.disabled);
        ts.extra
            .insert("skipped".into(), skipped.to_string().into());
        report.add_test_suite(ts);
    }
    report
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot write JUnit XML: {e} -->\n"))
}

/// The XML pre-pass of the workspace's escaping ([`agentconf_json::text::terminal_text`]):
/// characters that would act on a terminal or reorder text are shown as `\u{…}`; quick-junit
/// escapes `& < > " '` after it.
fn xml(s: &str) -> String {
    agentconf_json::text::terminal_text(s)
}
