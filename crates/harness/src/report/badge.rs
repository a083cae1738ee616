//! A shields.io endpoint badge.

use serde::Serialize;

use super::{totals, Totals};
use crate::results::ResultsFile;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Endpoint {
    schema_version: u32,
    label: &'static str,
    message: String,
    color: &'static str,
}

/// The badge colour: `red` when anything was falsely accepted or crashed, `yellow` for any other
/// unexpected outcome, `lightgrey` when no vector was counted (all unsupported, or none run),
/// `brightgreen` otherwise.
pub fn badge_color(t: &Totals) -> &'static str {
    if t.count("false-accept") > 0 || t.count("crash") > 0 {
        "red"
    } else if t.unexpected > 0 {
        "yellow"
    } else if t.total == 0 {
        "lightgrey"
    } else {
        "brightgreen"
    }
}

/// shields.io endpoint JSON: `{"schemaVersion":1,"label":"agentconf","message":"P/T passed",
/// "color":…}`; the total excludes unsupported vectors.
pub fn badge(file: &ResultsFile) -> String {
    let t = totals(file);
    let e = Endpoint {
        schema_version: 1,
        label: "agentconf",
        message: format!("{}/{} passed", t.passed, t.total),
        color: badge_color(&t),
    };
    let mut s = serde_json::to_string(&e).unwrap_or_default();
    s.push('\n');
    s
}
