//! The matrix as one self-contained HTML page: inline CSS, no script, no external resources.

use std::fmt::Write as _;

use super::markdown::{faults, verifies};
use super::{Cell, Judged, Kind, Matrix};
use crate::report::page::{self, base_css, esc, level_class};
use crate::report::{ReportFormat, DRAFTS_NOTE};

/// A cell's list of disagreements longer than this starts folded.
const FOLD_AFTER: usize = 6;

/// The page. Every string from the matrix file is HTML-escaped; anchors use positions, never
/// names; the only links are to anchors on the page and to each implementation's own report
/// beside it (`<results file name without .jsonl>.html`, a name the CLI writes).
pub fn html(m: &Matrix) -> String {
    let names: Vec<&str> = m.implementations.iter().map(|i| i.name.as_str()).collect();
    let disagreeing = m.cells.iter().filter(|c| !c.disagree.is_empty()).count();
    let state = if disagreeing == 0 { "ok" } else { "fail" };
    let mut o = String::with_capacity(32 * 1024);
    page::open(
        &mut o,
        "agentconf interoperability matrix",
        page::NEUTRAL_PALETTE,
        CSS,
    );
    page::banner(&mut o, state, "agentconf", "Interoperability matrix");
    let _ = write!(
        o,
        "<p class=\"sub\">{} implementations · {} of {} emitter × verifier pairs disagree · \
         corpus <code>{}</code> · agentconf {}</p>{}\
         <main class=\"wrap\">\n<p class=\"note\">{DRAFTS_NOTE}. A cell that agrees says the \
         verifier accepted what the emitter wrote for the corpus's emitter vectors and the judge \
         found each to be the expected artifact; it says nothing about either beyond those \
         vectors.</p>\n",
        names.len(),
        disagreeing,
        m.cells.iter().filter(|c| c.state() != "none").count(),
        esc(&m.corpus_digest),
        esc(&m.suite_version),
        page::BANNER_END,
    );

    // Implementations.
    let _ = write!(
        o,
        "<section class=\"card\"><h2>Implementations</h2><table class=\"grid\"><thead><tr>\
         <th>implementation</th><th>own verdict</th><th class=\"n\">passed</th>\
         <th>artifacts emitted<br><small>as expected / other / none</small></th>\
         <th>verifies</th><th>results</th></tr></thead><tbody>"
    );
    for i in &m.implementations {
        // The same colours as the implementation's own report.
        let v = level_class(i.verdict.level);
        let _ = write!(
            o,
            "<tr><th>{}</th><td data-label=\"own verdict\"><span class=\"verdict {v}\">{}</span>\
             </td><td class=\"n\" data-label=\"passed\">{}/{}</td><td data-label=\"artifacts \
             emitted as expected / other / none\">{} / {} / {}</td><td data-label=\"verifies\">{}\
             </td><td data-label=\"results\"><a href=\"{}\">report</a> · <code>{}</code></td></tr>",
            esc(&i.name),
            esc(&i.verdict.headline()),
            i.passed,
            i.total,
            i.emitted_expected,
            i.emitted_other,
            i.emitted_nothing.len(),
            esc(&verifies(&i.verifies)),
            esc(&report_name(&i.results)),
            esc(&i.results)
        );
    }
    o.push_str("</tbody></table></section>\n");

    // One grid per kind of artifact.
    for kind in Kind::ALL {
        let _ = write!(
            o,
            "<section class=\"card\"><h2>Emitters × verifiers: {k}s</h2><p class=\"note\">Rows \
             write {k}s, columns verify them. {} A number is how many emitted {k}s the pair \
             agrees or disagrees on; a disagreement links to its vectors and names who is at \
             fault.</p><table class=\"matrix\"><thead><tr><th class=\"corner\">emitter ↓ · \
             verifier →</th>",
            esc(kind.how_verified()),
            k = kind.as_str()
        );
        for n in &names {
            let _ = write!(o, "<th>{}</th>", esc(n));
        }
        o.push_str("</tr></thead><tbody>");
        for emitter in &names {
            let _ = write!(o, "<tr><th>{}</th>", esc(emitter));
            for verifier in &names {
                match m.cells.iter().position(|c| {
                    c.kind == kind && c.emitter == *emitter && c.verifier == *verifier
                }) {
                    Some(k) => cell(&mut o, &m.cells[k], k),
                    None => o.push_str("<td class=\"none\">—</td>"),
                }
            }
            o.push_str("</tr>");
        }
        let _ = writeln!(
            o,
            "</tbody></table><p class=\"note\"><span class=\"key agree\"></span> agree \
             <span class=\"key disagree\"></span> disagree <span class=\"key none\"></span> no \
             {k} reached a verdict (the emitter wrote none, or the verifier does not verify \
             {k}s)</p></section>",
            k = kind.as_str()
        );
    }

    // The disagreements.
    if disagreeing > 0 {
        o.push_str("<section class=\"card\"><h2>Disagreements</h2>");
        for (k, c) in m
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.disagree.is_empty())
        {
            // A long list (a broken emitter disagrees with every verifier on every vector) is
            // folded, so the page stays readable; its summary says what it holds.
            let open = if c.disagree.len() <= FOLD_AFTER {
                " open"
            } else {
                ""
            };
            let _ = write!(
                o,
                "<details class=\"cell\" id=\"cell-{k}\"{open}><summary><h3>{}s: {} → {} \
                 <small>{} · at fault: {}</small></h3></summary><table class=\"pairs\">\
                 <thead><tr><th>vector</th><th>judge</th><th>verifier</th><th>at fault</th>\
                 <th>verifier's answer</th></tr></thead><tbody>",
                c.kind.as_str(),
                esc(&c.emitter),
                esc(&c.verifier),
                c.disagree.len(),
                esc(&faults(c))
            );
            let row = m.implementations.iter().position(|i| i.name == c.emitter);
            for p in &c.disagree {
                // The vector links to what the emitter got wrong, told once per emitter.
                let target = row.and_then(|r| {
                    m.implementations[r]
                        .emitted_wrong
                        .iter()
                        .position(|w| w.vector == p.vector)
                        .map(|w| format!("wrong-{r}-{w}"))
                });
                let vector = match target {
                    Some(t) => format!("<a href=\"#{t}\"><code>{}</code></a>", esc(&p.vector)),
                    None => format!("<code>{}</code>", esc(&p.vector)),
                };
                let _ = write!(
                    o,
                    "<tr><td>{vector}</td><td data-label=\"judge\">{}</td>\
                     <td data-label=\"verifier\">{}</td><td class=\"fault {}\" \
                     data-label=\"at fault\">{}</td><td class=\"d\" \
                     data-label=\"verifier's answer\">{}</td></tr>",
                    judged_short(&p.judged),
                    esc(&p.verdict),
                    esc(&p.fault),
                    esc(&p.fault),
                    esc(&crate::report::clip(&p.verifier_detail, 300)),
                );
            }
            o.push_str("</tbody></table></details>");
        }
        o.push_str("</section>\n");
    }

    // What each emitter got wrong, once.
    if m.implementations
        .iter()
        .any(|i| !i.emitted_wrong.is_empty())
    {
        o.push_str(
            "<section class=\"card\"><h2>What the emitters got wrong</h2><p class=\"note\">Each \
             artifact an emitter wrote that is not the expected one, with the judge's verdict and \
             the emitter grading's first faults (where a digest differs: the construction that \
             explains it and the first preimage byte where it departs from the draft's; where a \
             receipt's bytes differ: the first differing byte).</p>",
        );
        for (r, i) in m.implementations.iter().enumerate() {
            if i.emitted_wrong.is_empty() {
                continue;
            }
            let _ = write!(o, "<h3>{}</h3><dl class=\"wrong\">", esc(&i.name));
            for (w, x) in i.emitted_wrong.iter().enumerate() {
                // An invalid artifact's reason is the grading's first fault again; an unjudged
                // one's says why the judge holds back.
                let why = match &x.judged {
                    Judged::Unjudged { why } => format!("<p>{}</p>", esc(why)),
                    _ => String::new(),
                };
                let _ = write!(
                    o,
                    "<dt id=\"wrong-{r}-{w}\"><code>{}</code> · {}</dt><dd>{why}<pre>{}</pre></dd>",
                    esc(&x.vector),
                    judged_short(&x.judged),
                    esc(&x.detail)
                );
            }
            o.push_str("</dl>");
        }
        o.push_str("</section>\n");
    }

    // Rules × implementations.
    let _ = write!(
        o,
        "<section class=\"card\"><h2>Rules × implementations</h2><p class=\"note\">Each \
         implementation's own run over the corpus, per rule, as its report counts it (pass: \
         every case of the rule ran and passed, with credit). A marked row is one the \
         implementations do not all fare alike on.</p><table class=\"rules\">\
         <thead><tr><th>rule</th><th>level</th>"
    );
    for n in &names {
        let _ = write!(o, "<th>{}</th>", esc(n));
    }
    o.push_str("</tr></thead><tbody>");
    for r in &m.rules {
        // Rows where the implementations do not all fare alike stand out: that is where they
        // differ in their reading of the draft.
        let split = r.results.windows(2).any(|w| w[0].status != w[1].status);
        let _ = write!(
            o,
            "<tr{}><th><code>{}</code><br><small>{}</small></th><td>{}</td>",
            if split { " class=\"split\"" } else { "" },
            esc(&r.rule),
            esc(&crate::report::clip(&r.title, 120)),
            esc(&r.level)
        );
        for x in &r.results {
            let _ = write!(
                o,
                "<td class=\"r {}\">{} <small>{}/{}</small></td>",
                status_class(&x.status),
                esc(&x.status),
                x.passed,
                x.total
            );
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></section>\n</main>\n</body>\n</html>\n");
    o
}

/// The judge's verdict in a few words.
fn judged_short(j: &Judged) -> String {
    match j {
        Judged::Valid => "valid".into(),
        Judged::Invalid { rule, .. } => format!("must reject <code>{}</code>", esc(rule)),
        Judged::Unjudged { .. } => "unjudged".into(),
    }
}

fn cell(o: &mut String, c: &Cell, k: usize) {
    match c.state() {
        "agree" => {
            let _ = write!(o, "<td class=\"agree\">agree<br><b>{}</b></td>", c.agree);
        }
        "disagree" => {
            let _ = write!(
                o,
                "<td class=\"disagree\"><a href=\"#cell-{k}\">disagree<br><b>{}</b></a>\
                 <br><small>{}</small>{}</td>",
                c.disagree.len(),
                esc(&faults(c)),
                if c.agree > 0 {
                    format!("<br><small>agree {}</small>", c.agree)
                } else {
                    String::new()
                }
            );
        }
        _ => o.push_str("<td class=\"none\">—</td>"),
    }
}

/// The per-implementation HTML report's name beside its results file.
pub fn report_name(results: &str) -> String {
    format!(
        "{}.{}",
        results.strip_suffix(".jsonl").unwrap_or(results),
        ReportFormat::Html.extension()
    )
}

fn status_class(status: &str) -> &'static str {
    match status {
        "pass" => "pass",
        "fail" => "fail",
        "partial" | "known-failure" | "uncredited" => "part",
        _ => "untested",
    }
}

const CSS: &str = concat!(
    base_css!(),
    r#"code{word-break:break-all}
header.top code{color:#fff;opacity:.85}
h3{font-size:15px;margin:20px 0 6px}h3 small{font-weight:400;color:var(--mut)}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 18px;margin:16px 0;overflow-x:auto}
.note{color:var(--mut);font-size:13px;margin:8px 0}
table{border-collapse:collapse}
th,td{padding:7px 10px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
thead th{font-size:12px;color:var(--mut);font-weight:600;border-bottom:2px solid var(--line)}
table.grid,table.pairs,table.rules{width:100%}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td .verdict{margin-left:0;padding:1px 10px;font-size:12px;color:#fff}
details.cell:target summary h3,dt:target{background:#fff3bf;border-radius:4px}
details.cell>summary{cursor:pointer;margin:14px 0 6px}details.cell summary h3{display:inline}
tr.split th{box-shadow:inset 4px 0 0 var(--wr)}
table.matrix th,table.matrix td{border:1px solid var(--line);text-align:center;min-width:120px}
table.matrix tbody th{text-align:right;background:#f6f8fa}
table.matrix th.corner{font-weight:400;font-size:12px;color:var(--mut)}
td.agree{background:#d3f9d8;color:#1b5e20}
td.disagree{background:#ffe3e3}td.disagree a{color:#a61e1e;font-weight:600;text-decoration:none}
td.disagree a:hover{text-decoration:underline}
td.none{background:#f1f3f5;color:var(--mut)}
td.d{font-size:12.5px;color:#424a53;max-width:420px;word-break:break-word}
td.fault{font-weight:650}td.fault.emitter{color:var(--wr)}td.fault.verifier,td.fault.both{color:var(--fa)}
.key{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:middle;margin:0 4px 0 12px;border:1px solid var(--line)}
.key.agree{background:#d3f9d8}.key.disagree{background:#ffe3e3}.key.none{background:#f1f3f5}
td.r{white-space:nowrap;font-size:12.5px}td.r small{color:var(--mut)}
td.r.pass{color:var(--ok);font-weight:600}td.r.fail{color:var(--fa);font-weight:600;background:#fff5f5}
td.r.part{color:var(--wr)}td.r.untested{color:var(--un)}
dl.wrong dt{margin-top:12px;font-weight:600}dl.wrong dd{margin:4px 0 0 0}dl.wrong p{margin:0 0 4px;color:var(--mut);font-size:12.5px;word-break:break-all}
dl.wrong pre{margin:0;padding:8px 10px;background:#f6f8fa;border:1px solid var(--line);border-radius:6px;white-space:pre-wrap;word-break:break-all;font-size:12px}
table.rules tbody th small{font-weight:400;color:var(--mut)}
a{color:#0969da}
@media (max-width:820px){.wrap{padding:0 12px}.card{padding:12px}h1{font-size:22px}
table.grid thead,table.pairs thead{display:none}
table.grid,table.grid tbody,table.grid tr,table.grid th,table.grid td,table.pairs,table.pairs tbody,table.pairs tr,table.pairs td{display:block;width:auto}
table.grid tr,table.pairs tr{padding:8px 0;border-bottom:1px solid var(--line)}
table.grid th,table.grid td,table.pairs td{border:0;padding:2px 0;text-align:left}
table.grid td::before,table.pairs td[data-label]::before{content:attr(data-label) ": ";color:var(--mut);font-size:12px}
td.d{max-width:none}
table.matrix th,table.matrix td{min-width:0;padding:6px 3px;font-size:11px}
table.matrix th.corner{font-size:10px}
table.rules th,table.rules td{padding:5px 3px;font-size:12px}
table.rules tbody th small,table.rules th:nth-child(2),table.rules td:nth-child(2){display:none}
td.r{white-space:normal;font-size:11px}td.r small{display:block}table.rules tbody th code{word-break:normal;font-size:11.5px}}
"#
);
