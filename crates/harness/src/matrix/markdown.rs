//! The matrix as Markdown (a CI step summary, a pull request, a README).

use std::fmt::Write as _;

use super::{Cell, Judged, Kind, Matrix};
use crate::report::markdown::{md, md_code};
use crate::report::DRAFTS_NOTE;

/// The page. Every string from the matrix file is escaped with the report's Markdown escaping
/// (`md`, `md_code`); anchors use positions, never names.
pub fn markdown(m: &Matrix) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# agentconf interoperability matrix\n");
    let _ = writeln!(
        o,
        "Corpus {}, agentconf {}. {DRAFTS_NOTE}. A cell that agrees says the verifier accepted \
         what the emitter wrote for the corpus's emitter vectors and the judge found each to be \
         the expected artifact; it is not a claim about either beyond those vectors.\n",
        md_code(&m.corpus_digest),
        md(&m.suite_version)
    );

    let _ = writeln!(o, "## Implementations\n");
    let _ = writeln!(
        o,
        "| implementation | own verdict | passed | artifacts emitted as expected / other / none | verifies | results |"
    );
    let _ = writeln!(o, "|---|---|---:|---|---|---|");
    for i in &m.implementations {
        let _ = writeln!(
            o,
            "| {} | {} | {}/{} | {} / {} / {} | {} | {} |",
            md(&i.name),
            md(&i.verdict.headline()),
            i.passed,
            i.total,
            i.emitted_expected,
            i.emitted_other,
            i.emitted_nothing.len(),
            verifies(&i.verifies),
            md_code(&i.results)
        );
    }

    let names: Vec<&str> = m.implementations.iter().map(|i| i.name.as_str()).collect();
    for kind in Kind::ALL {
        let _ = writeln!(o, "\n## Emitters × verifiers: {}s\n", kind.as_str());
        let _ = writeln!(
            o,
            "Rows write {k}s, columns verify them. {} `agree N`: N {k}s reached the verifier \
             and were accepted, and the judge holds each to be the expected one. A disagreement \
             names who is at fault; `—`: no {k} reached a verdict (none written, or the verifier \
             does not verify {k}s).\n",
            kind.how_verified(),
            k = kind.as_str()
        );
        let _ = write!(o, "| emitter ↓ verifier → |");
        for n in &names {
            let _ = write!(o, " {} |", md(n));
        }
        let _ = write!(o, "\n|---|");
        for _ in &names {
            let _ = write!(o, "---|");
        }
        let _ = writeln!(o);
        for emitter in &names {
            let _ = write!(o, "| {} |", md(emitter));
            for verifier in &names {
                let cell = m.cells.iter().position(|c| {
                    c.kind == kind && c.emitter == *emitter && c.verifier == *verifier
                });
                let _ = write!(
                    o,
                    " {} |",
                    match cell {
                        Some(k) => cell_text(&m.cells[k], k),
                        None => "—".into(),
                    }
                );
            }
            let _ = writeln!(o);
        }
    }

    let disagreeing: Vec<(usize, &Cell)> = m
        .cells
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.disagree.is_empty())
        .collect();
    if !disagreeing.is_empty() {
        let _ = writeln!(o, "\n## Disagreements");
        for (k, c) in disagreeing {
            let _ = writeln!(
                o,
                "\n<a id=\"cell-{k}\"></a>\n### {}s: {} → {}\n",
                c.kind.as_str(),
                md(&c.emitter),
                md(&c.verifier)
            );
            let _ = writeln!(
                o,
                "| vector | judge | verifier | at fault | verifier's answer |"
            );
            let _ = writeln!(o, "|---|---|---|---|---|");
            for p in &c.disagree {
                let _ = writeln!(
                    o,
                    "| {} | {} | {} | {} | {} |",
                    md_code(&p.vector),
                    judged_short(&p.judged),
                    md(&p.verdict),
                    md(&p.fault),
                    md(&crate::report::clip(&p.verifier_detail, 160)),
                );
            }
        }
    }

    let wrong: Vec<_> = m
        .implementations
        .iter()
        .filter(|i| !i.emitted_wrong.is_empty())
        .collect();
    if !wrong.is_empty() {
        let _ = writeln!(o, "\n## What the emitters got wrong\n");
        for i in wrong {
            let _ = writeln!(o, "### {}\n", md(&i.name));
            for w in &i.emitted_wrong {
                // An invalid artifact's reason is the grading's first fault, which the detail
                // gives: each detail once. An unjudged one's says why the judge holds back.
                let why = match &w.judged {
                    Judged::Unjudged { why } => format!(": {}", md(why)),
                    Judged::Invalid { .. } | Judged::Valid => String::new(),
                };
                let _ = writeln!(
                    o,
                    "- {} ({}{why})<br>{}",
                    md_code(&w.vector),
                    judged_short(&w.judged),
                    md(&w.detail)
                );
            }
            let _ = writeln!(o);
        }
    }

    let _ = writeln!(o, "\n## Rules × implementations\n");
    let _ = write!(o, "| rule | level |");
    for n in &names {
        let _ = write!(o, " {} |", md(n));
    }
    let _ = write!(o, "\n|---|---|");
    for _ in &names {
        let _ = write!(o, "---|");
    }
    let _ = writeln!(o);
    for r in &m.rules {
        let _ = write!(o, "| {} | {} |", md_code(&r.rule), md(&r.level));
        for x in &r.results {
            let _ = write!(o, " {} {}/{} |", md(&x.status), x.passed, x.total);
        }
        let _ = writeln!(o);
    }
    o
}

/// The kinds an implementation verifies, or `no`.
pub(super) fn verifies(kinds: &[Kind]) -> String {
    if kinds.is_empty() {
        return "no".into();
    }
    kinds
        .iter()
        .map(|k| format!("{}s", k.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The judge's verdict in a few words.
fn judged_short(j: &Judged) -> String {
    match j {
        Judged::Valid => "valid".into(),
        Judged::Invalid { rule, .. } => format!("must reject ({})", md_code(rule)),
        Judged::Unjudged { .. } => "unjudged".into(),
    }
}

fn cell_text(c: &Cell, k: usize) -> String {
    match c.state() {
        "agree" => format!("agree {}", c.agree),
        "disagree" => format!("[disagree {}](#cell-{k}) ({})", c.disagree.len(), faults(c)),
        _ => "—".into(),
    }
}

/// `emitter 4`, `verifier 1, both 2`: who is at fault, counted.
pub(super) fn faults(c: &Cell) -> String {
    ["emitter", "verifier", "both"]
        .iter()
        .filter_map(|who| {
            let n = c.disagree.iter().filter(|p| p.fault == *who).count();
            (n > 0).then(|| format!("{who} {n}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}
