//! A cluster case's history drawn as one lane per node: a small inline SVG (no script, no
//! stylesheet of its own), each point titled with what happened, so hovering one says it.

use std::fmt::Write as _;

use super::page::esc;
use crate::scenario::cluster::history::{Entry, What};

const WIDTH: u64 = 720;
const LEFT: u64 = 44;
const RIGHT: u64 = 12;
const LANE: u64 = 26;
const TOP: u64 = 8;

/// The lanes of `history` (empty for no history).
pub(super) fn lanes(history: &[Entry]) -> String {
    if history.is_empty() {
        return String::new();
    }
    let mut nodes: Vec<&str> = Vec::new();
    for e in history {
        if !nodes.contains(&e.node.as_str()) {
            nodes.push(&e.node);
        }
    }
    let end = history.iter().map(|e| e.t_us).max().unwrap_or(0).max(1);
    let span = WIDTH - LEFT - RIGHT;
    let height = TOP * 2 + LANE * nodes.len() as u64 + 14;
    let mut o = String::new();
    let _ = write!(
        o,
        "<h4>History <small>(one lane per node; {} events over {})</small></h4>\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"history of the cluster steps\" \
         font-family=\"sans-serif\" font-size=\"11\">",
        history.len(),
        ms(end)
    );
    for (i, node) in nodes.iter().enumerate() {
        let y = TOP + LANE * i as u64 + LANE / 2;
        let _ = write!(
            o,
            "<text x=\"4\" y=\"{}\">{}</text><line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" \
             stroke=\"#bbb\"/>",
            y + 4,
            esc(node),
            WIDTH - RIGHT
        );
    }
    for e in history {
        let lane = nodes.iter().position(|n| *n == e.node).unwrap_or(0) as u64;
        let x = LEFT + e.t_us.saturating_mul(span) / end;
        let y = TOP + LANE * lane + LANE / 2;
        let _ = write!(
            o,
            "<g><title>{}</title>{}</g>",
            esc(&title(e)),
            mark(e.decision, x, y)
        );
    }
    let _ = write!(
        o,
        "<text x=\"{LEFT}\" y=\"{}\">0 ms</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}\
         </text></svg>\n<p class=\"meta\">● admitted (green) · ● rejected (grey) · ○ deferred \
         (orange) · | delivered · ✕ killed · ‖ paused · ▸ resumed · ✂ cut · ⧗ stalled · ⚭ healed</p>",
        height - 4,
        WIDTH - RIGHT,
        height - 4,
        ms(end)
    );
    o
}

/// The point of one entry at `(x, y)`.
fn mark(what: What, x: u64, y: u64) -> String {
    let circle = |fill: &str, stroke: &str| {
        format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"5\" fill=\"{fill}\" stroke=\"{stroke}\"/>")
    };
    let glyph = |g: &str, colour: &str| {
        format!(
            "<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" fill=\"{colour}\" \
             font-size=\"13\">{g}</text>",
            y + 5
        )
    };
    match what {
        What::Delivered => format!(
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#555\"/>",
            y - 7,
            y + 7
        ),
        What::Admitted => circle("#2e7d32", "#1b5e20"),
        What::Rejected => circle("#9e9e9e", "#616161"),
        What::Deferred => circle("#fff", "#ef6c00"),
        What::Killed => glyph("✕", "#c62828"),
        What::Paused => glyph("‖", "#6a1b9a"),
        What::Resumed => glyph("▸", "#6a1b9a"),
        What::Cut => glyph("✂", "#c62828"),
        What::Stalled => glyph("⧗", "#ef6c00"),
        What::Healed => glyph("⚭", "#2e7d32"),
    }
}

/// `n2 at 12.1 ms: line 3 rejected (duplicate_event_id)`.
fn title(e: &Entry) -> String {
    let mut t = format!("{} at {}: ", e.node, ms(e.t_us));
    if let Some(line) = e.line {
        let _ = write!(t, "line {line} ");
    }
    t.push_str(e.decision.as_str());
    if let Some(reason) = &e.reason {
        let _ = write!(t, " ({reason})");
    }
    t
}

fn ms(t_us: u64) -> String {
    format!("{:.1} ms", t_us as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_lane_per_node_and_a_titled_mark_per_entry() {
        let entry = |node: &str, t_us, line, decision| Entry {
            node: String::from(node),
            t_us,
            line,
            decision,
            reason: (decision == What::Rejected).then(|| "duplicate_event_id".into()),
        };
        let history = [
            entry("n1", 0, Some(0), What::Delivered),
            entry("n2", 500, Some(0), What::Delivered),
            entry("n1", 12_100, Some(0), What::Admitted),
            entry("n2", 12_400, Some(0), What::Rejected),
            entry("n3", 13_000, None, What::Killed),
        ];
        let svg = lanes(&history);
        for node in ["n1", "n2", "n3"] {
            assert_eq!(svg.matches(&format!(">{node}</text>")).count(), 1, "{svg}");
        }
        assert_eq!(svg.matches("<title>").count(), history.len());
        assert!(svg.contains("<title>n2 at 12.4 ms: line 0 rejected (duplicate_event_id)</title>"));
        assert!(!svg.contains("<script"));
        assert_eq!(lanes(&[]), "");
    }
}
