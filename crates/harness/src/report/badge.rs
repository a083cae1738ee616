//! A shields.io endpoint badge, derived from the verdict: green only for CONFORMS, a short fixed
//! label, and a message that says what was tested.

use serde::Serialize;

use agentconf_contract::vector::Suite;

use super::view::View;
use super::{Level, RunVerdict};
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
pub(crate) fn badge_color(v: &RunVerdict) -> &'static str {
    match v.level {
        Level::Conforms => "brightgreen",
        Level::ConformsWithKnownFailures => "yellow",
        Level::Partial => "blue",
        Level::Fail => "red",
        Level::NothingTested => "lightgrey",
    }
}

/// The badge's label: short and the same for every run, so that a README's row of badges
/// lines up; what the verdict covers is in the message.
pub(crate) const BADGE_LABEL: &str = "agentconf";

/// shields.io endpoint JSON: `{"schemaVersion":1,"label":"agentconf","message":"CONFORMS
/// 663/663","color":…}`. The message is the verdict and the cases passed of those graded
/// (unsupported and skipped ones excluded); when the verdict is not about the whole corpus under
/// strict grading, it names its scope too: the suites where a case ran (`PARTIAL 189/189 ·
/// aer1-timeline`, or `· 4 of 7 suites`), and `loose`.
pub(crate) fn render(view: &View) -> String {
    let t = &view.totals;
    let v = &view.verdict;
    let counted: usize = view.suites.iter().map(|s| s.ran).sum();
    let mut message = format!("{} {}/{}", v.headline(), t.passed, counted);
    if let Some(scope) = scope(view) {
        message.push_str(" · ");
        message.push_str(&scope);
    }
    let e = Endpoint {
        schema_version: 1,
        label: BADGE_LABEL.into(),
        message,
        color: badge_color(v),
    };
    let mut s = serde_json::to_string(&e).unwrap_or_default();
    s.push('\n');
    s
}

/// What a verdict that is not about the whole corpus covers, in a few words; `None` when it is
/// about the whole corpus, or about nothing.
fn scope(view: &View) -> Option<String> {
    if view.verdict.partial.is_empty() {
        return None;
    }
    let ran: Vec<&str> = (view.suites.iter())
        .filter(|s| s.tested())
        .map(|s| s.suite.as_str())
        .collect();
    let mut words = match ran.as_slice() {
        // NOTHING TESTED says it all.
        [] => return None,
        [_] | [_, _] => ran.join("+"),
        many => format!("{} of {} suites", many.len(), Suite::ALL.len()),
    };
    if view.header.grading == Grading::Loose {
        words.push_str(" loose");
    }
    Some(words)
}
