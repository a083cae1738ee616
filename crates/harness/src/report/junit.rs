//! JUnit XML for CI.

use std::time::Duration;

use agentconf_contract::vector::Suite;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::grading_name;
use super::view::View;
use crate::status::Status;

/// JUnit XML: one `testsuite` per corpus suite that has results (in corpus order), one
/// `testcase` per vector (name = id, classname = `suite/family`, sorted by id). Unexpected
/// outcomes are `failure`s (message and type = the status; text = detail, then the captured
/// stderr); unsupported vectors are `skipped`. quick-junit escapes the text and drops characters
/// XML cannot carry.
pub fn render(view: &View) -> String {
    let h = view.header;
    let v = &view.verdict;
    let mut report = Report::new("agentconf");
    for suite in Suite::ALL {
        let mut lines: Vec<_> = view.results.iter().filter(|r| r.suite == suite).collect();
        if lines.is_empty() {
            continue;
        }
        lines.sort_by(|a, b| a.id.cmp(&b.id));
        let mut ts = TestSuite::new(suite.as_str());
        ts.add_property(("implementation", h.implementation.name.as_str()));
        ts.add_property(("corpus_digest", h.corpus_digest.as_str()));
        ts.add_property(("suite_version", h.suite_version.as_str()));
        ts.add_property(("grading", grading_name(h.grading).as_str()));
        // The verdict of the whole file, the same words as every other format.
        ts.add_property(("verdict", v.headline().as_str()));
        for reason in &v.partial {
            ts.add_property(("scope", reason.as_str()));
        }
        for r in lines {
            let name = r.status.name();
            let status = if r.status == Status::Pass {
                TestCaseStatus::success()
            } else if r.status.is_unexpected() {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(name).set_type(name);
                let mut text = r.detail.clone();
                if !r.stderr.is_empty() {
                    text.push_str("\n\nstderr:\n");
                    text.push_str(&r.stderr);
                }
                s.set_description(text);
                s
            } else {
                // Unsupported (and any other status that neither passes nor fails the run).
                let mut s = TestCaseStatus::skipped();
                s.set_message(name).set_type(name);
                if !r.detail.is_empty() {
                    s.set_description(r.detail.as_str());
                }
                s
            };
            let mut tc = TestCase::new(r.id.as_str(), status);
            if r.status == Status::Pass {
                if let Some(why) = view.why_uncredited(&r.id) {
                    tc.set_system_out(format!("uncredited: {why}"));
                }
            }
            tc.set_classname(format!("{}/{}", suite.as_str(), r.family));
            tc.set_time(Duration::from_millis(r.duration_ms));
            ts.add_test_case(tc);
        }
        report.add_test_suite(ts);
    }
    report
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot write JUnit XML: {e} -->\n"))
}
