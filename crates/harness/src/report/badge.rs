//! A shields.io endpoint badge, derived from the verdict: green only for CONFORMS, and a label
//! that says what was tested.

use serde::Serialize;

use super::view::View;
use super::{Level, Verdict};
use crate::grade::Grading;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Endpoint {
    schema_version: u32,
    label: String,
    message: String,
    color: &'static str,
}

/// The badge colour: `brightgreen` only for CONFORMS; `yellow` with known failures; `blue` for a
/// partial run; `red` for FAIL; `lightgrey` when nothing was tested.
pub fn badge_color(v: &Verdict) -> &'static str {
    match v.level {
        Level::Conforms => "brightgreen",
        Level::ConformsWithKnownFailures => "yellow",
        Level::Partial => "blue",
        Level::Fail => "red",
        Level::NothingTested => "lightgrey",
    }
}

/// shields.io endpoint JSON: `{"schemaVersion":1,"label":"agentconf aer1-timeline strict",
/// "message":"CONFORMS 555/555","color":…}`. The label names the suites that have counted results,
/// the grading and the claimed profiles; the total excludes unsupported and skipped cases.
pub fn render(view: &View) -> String {
    let t = &view.totals;
    let v = &view.verdict;
    let mut suites: Vec<&str> = Vec::new();
    for r in view.results {
        let s = r.suite.as_str();
        if !suites.contains(&s) && r.status != crate::status::Status::Unsupported {
            suites.push(s);
        }
    }
    let mut label = format!(
        "agentconf {} {}",
        if suites.is_empty() {
            "(no suite)".to_string()
        } else {
            suites.join("+")
        },
        match view.header.grading {
            Grading::Strict => "strict",
            Grading::Loose => "loose",
        }
    );
    // Profiles are GRP capabilities: named only where GRP cases were counted.
    if !view.header.profiles.is_empty() && suites.contains(&"grp-admission") {
        label.push_str(&format!(" +{}", view.header.profiles.join("+")));
    }
    // Profiles come from the file: keep the label short whatever they say.
    let label = super::clip(&label, 80);
    let counted = view
        .results
        .iter()
        .filter(|r| r.status.is_counted())
        .count();
    let e = Endpoint {
        schema_version: 1,
        label,
        message: format!("{} {}/{}", v.headline(), t.passed, counted),
        color: badge_color(v),
    };
    let mut s = serde_json::to_string(&e).unwrap_or_default();
    s.push('\n');
    s
}
