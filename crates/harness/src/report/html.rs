//! One self-contained HTML page: inline CSS, a little inline JavaScript, no external resources.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::page::{self, base_css, esc, level_class};
use super::view::{cases, counted, DraftGroup, Part, Sections, View};
use super::{clip, unexpected_phrase, Level, RuleRow, RuleStatus, DRAFTS_NOTE};
use crate::results::{ResultLine, RuleRef};
use crate::status::Status;

/// How many unexpected results the overview lists before folding the rest.
const UNEXPECTED_SHOWN: usize = 20;

/// How many failing vectors a rule row links to.
const FAILS_SHOWN: usize = 6;

/// The page being written: the view, and the anchors of its cases and rules (positions, never
/// ids from the file).
struct Page<'v, 'a> {
    view: &'v View<'a>,
    case_anchor: HashMap<&'a str, usize>,
    rule_anchor: HashMap<&'v str, usize>,
    o: String,
}

/// The page. Works without JavaScript (the per-case detail is `<details>`; the filters are
/// simply absent); with it, filters by status, suite and id/rule text appear. Every string from
/// the results file is HTML-escaped (`& < > " '`), control and bidirectional characters are
/// shown as `\u{…}`, and nothing from the file reaches the script or a URL. It opens with the
/// verdict and its scope, then the per-suite summary, the unexpected results and the known
/// failures with their reasons; a FAIL page has no green anywhere.
pub(crate) fn render(view: &View) -> String {
    let mut case_anchor = HashMap::new();
    for (i, r) in view.lines.iter().enumerate() {
        case_anchor.entry(r.id.as_str()).or_insert(i);
    }
    let mut p = Page {
        view,
        case_anchor,
        rule_anchor: (view.rules.iter().enumerate())
            .map(|(i, r)| (r.rule.as_str(), i))
            .collect(),
        o: String::with_capacity(64 * 1024 + view.results.len() * 1024),
    };
    let t = &view.totals;
    page::open(
        &mut p.o,
        &format!(
            "agentconf: {} — {} {}/{}",
            esc(&view.header.implementation.name),
            view.verdict.headline(),
            t.passed,
            t.total
        ),
        page::palette(view.verdict.level),
        CSS,
    );
    p.write_all();
    p.cases();
    let _ = write!(
        p.o,
        "<footer>Derived by agentconf from a results file ({}). All text from the file is \
         shown escaped.</footer>\n</main>\n<script>{JS}</script>\n</body>\n</html>\n",
        esc(&view.header.format)
    );
    p.o
}

impl Page<'_, '_> {
    /// `<code>id</code>`, linked to the case's detail when the page lists it.
    fn case_link(&self, id: &str) -> String {
        match self.case_anchor.get(id) {
            Some(i) => format!("<a href=\"#v-{i}\"><code>{}</code></a>", esc(id)),
            None => format!("<code>{}</code>", esc(id)),
        }
    }

    /// One table per draft, a row group per section headed in words.
    fn rule_tables(&mut self, drafts: &[DraftGroup]) {
        for draft in drafts {
            let _ = write!(
                self.o,
                "<h3>{}</h3>\n<table class=\"rules\"><thead><tr><th>Rule</th><th>Level</th>\
                 <th>Cases passed</th><th>Status</th></tr></thead>\n",
                esc(&draft.draft)
            );
            for section in &draft.sections {
                let _ = writeln!(
                    self.o,
                    "<tbody><tr class=\"sec\"><th colspan=\"4\">{}</th></tr>",
                    esc(&section.heading)
                );
                for i in &section.rows {
                    rule_row(&mut self.o, *i, &self.view.rules[*i], &self.case_anchor);
                }
                self.o.push_str("</tbody>\n");
            }
            self.o.push_str("</table>\n");
        }
    }

    /// Every case, graded ones first, most severe first, with filters.
    fn cases(&mut self) {
        let view = self.view;
        let mut suites: Vec<&str> = view.results.iter().map(|r| r.suite.as_str()).collect();
        suites.sort_unstable();
        suites.dedup();
        let o = &mut self.o;
        let _ = write!(
            o,
            "<section class=\"card\" id=\"cases\"><h2>Cases <small>{} · most severe first, \
             those not run last · click one for expected vs actual and captured stderr</small>\
             </h2>\n<form class=\"filters\" id=\"filters\" hidden>\
             <label>Status <select id=\"f-status\"><option value=\"\">all</option>\
             <option value=\"unexpected\">unexpected only</option>",
            view.totals.vectors
        );
        for (status, n) in &view.totals.by_status {
            if *n > 0 {
                let _ = write!(
                    o,
                    "<option value=\"{s}\">{s} ({n})</option>",
                    s = esc(status)
                );
            }
        }
        o.push_str(
            "</select></label> <label>Suite <select id=\"f-suite\"><option value=\"\">all</option>",
        );
        for s in &suites {
            let _ = write!(o, "<option value=\"{s}\">{s}</option>", s = esc(s));
        }
        o.push_str(
            "</select></label> <label class=\"grow\">Search <input id=\"f-q\" type=\"search\" \
             placeholder=\"case id or rule id\" autocomplete=\"off\"></label> \
             <button type=\"button\" id=\"f-open\">expand shown</button> \
             <button type=\"button\" id=\"f-close\">collapse all</button> \
             <span id=\"f-count\" class=\"count\"></span></form>\n<div id=\"vlist\">\n",
        );
        // Cases outside the declared scope were never run: one line each would make a subset
        // implementation's page mostly rows that say nothing (tens of thousands of pixels on a
        // phone). They are listed together, folded, after the cases that ran.
        let mut out_of_scope: Vec<&str> = Vec::new();
        for (i, r) in view.lines.iter().enumerate() {
            if r.status == Status::OutOfScope {
                out_of_scope.push(&r.id);
                continue;
            }
            vector_row(o, i, r, &self.rule_anchor);
        }
        o.push_str("</div>\n");
        if !out_of_scope.is_empty() {
            let _ = write!(
                o,
                "<details class=\"more out-of-scope\"><summary>{} cases outside the declared \
                 scope, not run (none is charged to a rule)</summary><p class=\"ids\">",
                out_of_scope.len()
            );
            for (n, id) in out_of_scope.iter().enumerate() {
                if n > 0 {
                    o.push_str(", ");
                }
                let _ = write!(o, "<code>{}</code>", esc(id));
            }
            o.push_str("</p></details>\n");
        }
        o.push_str(
            "<p id=\"f-empty\" class=\"empty\" hidden>No case matches the filters.</p>\
             </section>\n",
        );
    }
}

impl Sections for Page<'_, '_> {
    fn headline(&mut self) {
        let view = self.view;
        let (t, v) = (&view.totals, &view.verdict);
        let class = level_class(v.level);
        page::banner(
            &mut self.o,
            class,
            "agentconf conformance report",
            &format!(
                "{} <small>(named by the claimant)</small> <span class=\"verdict \
                 {class}\">{}</span>",
                esc(&view.header.implementation.name),
                v.headline()
            ),
        );
        let o = &mut self.o;
        let _ = write!(
            o,
            "<p class=\"sub\">{} of {} cases passed",
            t.passed, t.total
        );
        if t.unexpected > 0 {
            let _ = write!(o, " · {}", esc(&unexpected_phrase(t)));
        }
        if t.unsupported > 0 {
            let _ = write!(o, " · {} unsupported (not counted)", t.unsupported);
        }
        let known = view.known_failures.len();
        if known > 0 {
            let _ = write!(
                o,
                " · <a href=\"#known\">{}</a>",
                counted(known, "known failure")
            );
        }
        o.push_str("</p>");
        o.push_str("<ul class=\"partial\">");
        let _ = write!(o, "<li>scope: {}</li>", esc(&v.scope));
        for reason in &v.partial {
            let _ = write!(o, "<li>scope: {}</li>", esc(reason));
        }
        o.push_str("</ul>");
        o.push_str(page::BANNER_END);
        o.push_str("<main class=\"wrap\">\n");
    }

    /// The per-suite summary: the implementation's own suites in a table, the others folded.
    fn suites(&mut self) {
        let columns = self.view.suite_columns();
        let (tested, untested) = self.view.suites_tested();
        let o = &mut self.o;
        o.push_str(
            "<section class=\"card\" id=\"suites\"><h2>Suites <small>the implementation's own \
             first · counted in cases</small></h2><table class=\"suites\"><thead><tr>\
             <th>suite</th>",
        );
        for c in &columns {
            let _ = write!(o, "<th>{}</th>", c.heading);
        }
        o.push_str("</tr></thead><tbody>\n");
        for s in tested {
            let _ = write!(o, "<tr><th><code>{}</code></th>", esc(s.suite.as_str()));
            for c in &columns {
                let n = (c.count)(s);
                let hot = if n > 0 && c.alarm {
                    " class=\"hot\""
                } else {
                    ""
                };
                let _ = write!(o, "<td{hot}>{n}</td>");
            }
            o.push_str("</tr>\n");
        }
        o.push_str("</tbody></table>\n");
        if !untested.is_empty() {
            let _ = write!(
                o,
                "<details class=\"more\"><summary>Not tested: {}, every case unsupported, \
                 skipped or out of scope</summary><ul class=\"untested\">",
                counted(untested.len(), "suite")
            );
            for s in untested {
                let _ = write!(
                    o,
                    "<li><code>{}</code> {}</li>",
                    esc(s.suite.as_str()),
                    cases(s.cases)
                );
            }
            o.push_str("</ul></details>\n");
        }
        o.push_str("</section>\n");
    }

    /// Unexpected results, false accepts first.
    fn unexpected(&mut self) {
        let bad: Vec<(usize, &ResultLine)> = (self.view.lines.iter().enumerate())
            .filter(|(_, r)| r.status.is_unexpected())
            .map(|(i, r)| (i, *r))
            .collect();
        if bad.is_empty() {
            return;
        }
        let o = &mut self.o;
        let _ = writeln!(
            o,
            "<section class=\"card\" id=\"unexpected\"><h2>Unexpected results \
             <small>{} · false accepts first</small></h2><ol class=\"bad\">",
            bad.len()
        );
        let more = bad.len().saturating_sub(UNEXPECTED_SHOWN);
        for (k, (i, r)) in bad.into_iter().enumerate() {
            if k == UNEXPECTED_SHOWN {
                // The rest folded (native <details>: no script needed), numbering continued.
                let _ = writeln!(
                    o,
                    "</ol><details class=\"more\"><summary>…and {more} more</summary>\
                     <ol class=\"bad\" start=\"{}\">",
                    UNEXPECTED_SHOWN + 1
                );
            }
            let _ = writeln!(
                o,
                "<li>{} <a href=\"#v-{i}\"><code>{}</code></a> <span class=\"d\">{}</span></li>",
                pill(r.status.name()),
                esc(&r.id),
                esc(&clip(&r.detail, 160))
            );
        }
        o.push_str(if more > 0 {
            "</ol></details></section>\n"
        } else {
            "</ol></section>\n"
        });
    }

    /// The expected failures, each with how it failed and the adapter's reason.
    fn known_failures(&mut self) {
        let known = &self.view.known_failures;
        if known.is_empty() {
            return;
        }
        let mut o = format!(
            "<section class=\"card\" id=\"known\"><h2>Known failures <small>{} · listed by the \
             adapter · each still a failure of its rules</small></h2><ol class=\"known\">\n",
            known.len()
        );
        for k in known {
            let _ = writeln!(
                o,
                "<li>{} {}<p class=\"reason\">{}</p></li>",
                pill(k.failed_as.map_or("xfail", |s| s.name())),
                self.case_link(&k.id),
                esc(&k.reason)
            );
        }
        o.push_str("</ol></section>\n");
        self.o.push_str(&o);
    }

    /// The run's facts, in the view's words.
    fn facts(&mut self) {
        let o = &mut self.o;
        o.push_str("<section class=\"card facts\" id=\"run\"><h2>Run</h2><dl>\n");
        for f in &self.view.facts {
            let value: String = (f.value.iter())
                .map(|p| match p {
                    Part::Text(s) => esc(s),
                    Part::Code(s) => format!("<code>{}</code>", esc(s)),
                })
                .collect();
            let _ = writeln!(o, "<dt>{}</dt><dd>{value}</dd>", f.label);
        }
        // One command source: an adapter's claim is re-run through the adapter (its command),
        // never with a command after `--` beside it; the expected-failures file goes with it.
        let h = self.view.header;
        let mut how = String::from("agentconf claim verify RESULTS");
        if h.adapter_digest.is_some() {
            how.push_str(" --adapter FILE");
        }
        if h.xfail_digest.is_some() {
            how.push_str(" --xfail FILE");
        }
        if h.adapter_digest.is_none() && !h.implementation.argv.is_empty() {
            how.push_str(" -- COMMAND");
        }
        let _ = writeln!(
            o,
            "</dl><p class=\"note\">{}. Same corpus digest and same implementation give the same \
             results: anyone can re-check this report with <code>{}</code>, which re-runs every \
             case it records and lists each difference.</p></section>",
            esc(DRAFTS_NOTE),
            esc(&how)
        );
    }

    /// Counters: false accepts first and largest; each filters the case list.
    fn totals(&mut self) {
        let (t, v) = (&self.view.totals, &self.view.verdict);
        let o = &mut self.o;
        o.push_str("<section class=\"counters\" aria-label=\"totals\">\n");
        let fa = t.count("false-accept");
        // False accepts the adapter lists as expected failures are false accepts still: counted
        // here, and the tile is red, whatever the verdict.
        let listed = t.listed_false_accepts;
        let shown = fa + listed;
        let _ = write!(
            o,
            "<a class=\"counter big s-false-accept{}\" href=\"#cases\" data-filter=\"false-accept\">\
             <span class=\"n\">{shown}</span><span class=\"l\">false accept{}</span>\
             <span class=\"h\">{}</span></a>\n<div class=\"small\">\n",
            // The reassuring green zero only where the verdict is CONFORMS: with expected
            // failures, skips or a subset, "none accepted" would say more than the run shows.
            if shown > 0 {
                " hot"
            } else if v.level == Level::Conforms {
                " zero"
            } else {
                " plain"
            },
            if shown == 1 { "" } else { "s" },
            if listed > 0 {
                format!(
                    "accepted input the drafts require to be rejected ({listed} of them listed as \
                     expected failures)"
                )
            } else if fa > 0 {
                "accepted input the drafts require to be rejected".into()
            } else if v.level == Level::Conforms {
                "no input that must be rejected was accepted".into()
            } else {
                "none among the cases graded; the verdict above says what this does not cover"
                    .into()
            }
        );
        for (status, n) in t.by_status.iter().filter(|(s, _)| s != "false-accept") {
            let _ = writeln!(
                o,
                "<a class=\"counter s-{status}{}\" href=\"#cases\" data-filter=\"{status}\">\
                 <span class=\"n\">{n}</span><span class=\"l\">{status}</span></a>",
                if *n == 0 { " zero" } else { "" },
                status = esc(status)
            );
        }
        let _ = write!(
            o,
            "<div class=\"counter conf {}\"><span class=\"n\">{}%</span>\
             <span class=\"l\">{}/{} cases passed</span>{}</div>\n</div>\n</section>\n",
            level_class(v.level),
            percent(t.passed, t.total),
            t.passed,
            t.total,
            bar(t.passed, t.total - t.passed, t.total, true)
        );
    }

    /// The per-rule table: the rules a case of which ran, by draft and section; the untested
    /// ones folded after them. The card is closed by [`Sections::uncredited`].
    fn rules(&mut self) {
        let rows = &self.view.rules;
        let count = |f: fn(RuleStatus) -> bool| rows.iter().filter(|r| f(r.status)).count();
        let failing = count(|s| s == RuleStatus::Fail);
        let known = count(|s| s == RuleStatus::KnownFailure);
        let partial = count(|s| s == RuleStatus::Partial);
        let uncredited = count(|s| s == RuleStatus::Uncredited);
        let _ = writeln!(
            self.o,
            "<section class=\"card\" id=\"rules\"><h2>Rules <small>{} rules · {failing} failing \
             · {known} with known failures · {partial} partly tested · {} untested · \
             {uncredited} uncredited{}</small></h2><p class=\"note\">A rule passes only when \
             every case of it passed and earned credit: a rejection counts only when the valid \
             vector it was derived from was accepted, an acceptance only when a vector derived \
             from it was rejected (paired credit), so accepting or rejecting everything earns no \
             rule. A rule whose passes did not all earn credit is <em>uncredited</em>.</p>",
            rows.len(),
            self.view.untested_rules(),
            (self.view.rules_without_cases.as_deref())
                .map(|a| format!(" · {a}"))
                .unwrap_or_default()
        );
        let view = self.view;
        self.rule_tables(&view.drafts);
        if !view.untested.is_empty() {
            let _ = writeln!(
                self.o,
                "<details class=\"more untested\"><summary>Untested: {}, every case of theirs \
                 unsupported, skipped or out of scope</summary>",
                counted(view.untested_rules(), "rule")
            );
            self.rule_tables(&view.untested);
            self.o.push_str("</details>\n");
        }
    }

    /// The uncredited passes, at the end of the rules' card, which it closes.
    fn uncredited(&mut self) {
        let view = self.view;
        if !view.uncredited.is_empty() {
            let mut o = format!(
                "<h3 id=\"uncredited\">Uncredited passes <small>{} without earning credit for \
                 their rules</small></h3><ul class=\"uncredited\">\n",
                super::passed_cases(view.uncredited.len())
            );
            for u in &view.uncredited {
                let _ = writeln!(o, "<li>{}: {}</li>", self.case_link(&u.id), esc(&u.why));
            }
            o.push_str("</ul>\n");
            self.o.push_str(&o);
        }
        self.o.push_str("</section>\n");
    }
}

fn rule_row(o: &mut String, index: usize, row: &RuleRow, vector_anchor: &HashMap<&str, usize>) {
    let failed = row.unexpected.len();
    let _ = write!(
        o,
        "<tr id=\"r-{index}\" class=\"r-{}\"><td><code class=\"rule\">{}</code>\
         <div class=\"title\">{}</div>",
        row.status.as_str(),
        esc(&row.rule),
        esc(&row.title)
    );
    if failed > 0 {
        o.push_str("<div class=\"fails\">");
        for id in row.unexpected.iter().take(FAILS_SHOWN) {
            match vector_anchor.get(id.as_str()) {
                Some(i) => {
                    let _ = write!(o, "<a href=\"#v-{i}\">{}</a> ", esc(id));
                }
                None => {
                    let _ = write!(o, "<span>{}</span> ", esc(id));
                }
            }
        }
        if failed > FAILS_SHOWN {
            let _ = write!(o, "<span>…and {} more</span>", failed - FAILS_SHOWN);
        }
        o.push_str("</div>");
    }
    let _ = writeln!(
        o,
        "</td><td><span class=\"lvl lvl-{}\">{}</span></td><td class=\"num\">{}\
         <span class=\"frac\">{}/{}</span>{}</td><td>{}</td></tr>",
        if row.level == "MUST" { "must" } else { "other" },
        esc(&row.level),
        bar(row.passed, failed, row.total, false),
        row.passed,
        row.total,
        (row.unsupported_note())
            .map(|n| format!("<span class=\"uns\">{n}</span>"))
            .unwrap_or_default(),
        rule_pill(row.status)
    );
}

fn vector_row(o: &mut String, i: usize, r: &ResultLine, rule_anchor: &HashMap<&str, usize>) {
    let status = r.status.name();
    let expectation = serde_json::to_value(r.expectation)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let meaning = match expectation.as_str() {
        "valid" => "must accept",
        "invalid" => "must reject",
        "acceptable" => "either verdict conforms",
        _ => "",
    };
    let _ = write!(
        o,
        "<details class=\"v s-{status}\" id=\"v-{i}\" data-status=\"{status}\" \
         data-unexpected=\"{}\" data-suite=\"{}\" data-id=\"{}\" data-rules=\"{}\">\
         <summary>{} <code class=\"id\">{}</code><span class=\"d\">{}</span>\
         <span class=\"ms\">{} ms</span></summary>\n<div class=\"body\"><div class=\"cmp\">\
         <div class=\"exp\"><h4>Expected</h4><p><strong>{}</strong> — {meaning}</p>",
        u8::from(r.status.is_unexpected()),
        esc(r.suite.as_str()),
        esc(&r.id),
        esc(&crate::results::joined(&r.rules, " ")),
        pill(status),
        esc(&r.id),
        esc(&clip(&r.detail, 120)),
        r.duration_ms,
        esc(&expectation)
    );
    if !r.expected_rules.is_empty() {
        o.push_str("<p>a rejection cites ");
        rule_links(o, &r.expected_rules, rule_anchor);
        o.push_str("</p>");
    }
    let _ = write!(
        o,
        "</div><div class=\"act\"><h4>Actual</h4><p>{}</p><p class=\"detail\">{}</p></div>\
         </div>\n<p class=\"meta\">suite <strong>{}</strong> · family <strong>{}</strong> · \
         level <strong>{}</strong> · exercises ",
        pill(status),
        if r.detail.is_empty() {
            "<em>no detail</em>".to_string()
        } else {
            esc(&r.detail)
        },
        esc(r.suite.as_str()),
        esc(&r.family),
        esc(r.level.as_str())
    );
    rule_links(o, &r.rules, rule_anchor);
    o.push_str("</p>\n");
    o.push_str(&super::lanes::lanes(r.suite_detail.history()));
    if r.stderr.is_empty() {
        o.push_str("<p class=\"meta\">No standard error captured.</p>");
    } else {
        let _ = write!(
            o,
            "<h4>Captured stderr <small>(never interpreted)</small></h4><pre>{}</pre>",
            esc(&r.stderr)
        );
    }
    o.push_str("</div></details>\n");
}

fn rule_links(o: &mut String, rules: &[RuleRef], rule_anchor: &HashMap<&str, usize>) {
    if rules.is_empty() {
        o.push_str("<em>no rule</em>");
    }
    for (k, rule) in rules.iter().enumerate() {
        if k > 0 {
            o.push(' ');
        }
        match rule_anchor.get(rule.id()) {
            Some(i) => {
                let _ = write!(
                    o,
                    "<a class=\"chip\" href=\"#r-{i}\">{}</a>",
                    esc(rule.id())
                );
            }
            None => {
                let _ = write!(o, "<span class=\"chip\">{}</span>", esc(rule.id()));
            }
        }
    }
}

fn pill(status: &str) -> String {
    format!("<span class=\"pill s-{s}\">{s}</span>", s = esc(status))
}

fn rule_pill(s: RuleStatus) -> String {
    let class = match s {
        RuleStatus::Pass => "pass",
        RuleStatus::KnownFailure => "xfail",
        RuleStatus::Fail => "false-accept",
        RuleStatus::Partial
        | RuleStatus::Untested
        | RuleStatus::OutOfScope
        | RuleStatus::Uncredited => "unsupported",
    };
    format!("<span class=\"pill s-{class}\">{}</span>", s.as_str())
}

fn percent(n: usize, total: usize) -> usize {
    (n * 100).checked_div(total).unwrap_or(0)
}

/// A pass/fail bar: green for `passed`, red for `failed`, out of `total` (grey when 0).
fn bar(passed: usize, failed: usize, total: usize, wide: bool) -> String {
    let (p, f) = (percent(passed, total), percent(failed, total));
    format!(
        "<span class=\"bar{}\" role=\"img\" aria-label=\"{passed} of {total} passed\">\
         <span class=\"p\" style=\"width:{p}%\"></span><span class=\"f\" style=\"width:{f}%\">\
         </span></span>",
        if wide { " wide" } else { "" }
    )
}

const CSS: &str = concat!(
    base_css!(),
    r#"h3{font-size:15px;margin:18px 0 6px;font-family:ui-monospace,Menlo,Consolas,monospace}
h4{margin:0 0 4px;font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--mut)}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 18px;margin:16px 0}
.counters{display:grid;grid-template-columns:minmax(220px,1fr) 3fr;gap:12px}
.small{display:grid;grid-template-columns:repeat(4,1fr);gap:10px}
.counter{display:flex;flex-direction:column;justify-content:center;background:var(--card);border:1px solid var(--line);border-left:6px solid var(--c,var(--un));border-radius:10px;padding:10px 14px;color:inherit;text-decoration:none;min-height:72px}
a.counter:hover{box-shadow:0 1px 6px rgba(0,0,0,.12)}
.counter .n{font-size:26px;font-weight:750;line-height:1.1;color:var(--c,var(--fg));font-variant-numeric:tabular-nums}
.counter .l{font-size:12.5px;color:var(--mut)}
.counter.zero .n{color:#6c757d}.counter.zero{border-left-color:#dee2e6}
.counter.big{padding:16px 20px}.counter.big .n{font-size:56px}.counter.big .l{font-size:15px;font-weight:600;color:var(--fg)}.counter.big .h{font-size:12.5px;color:var(--mut);margin-top:4px}
.counter.big.hot{background:var(--fa);border-color:var(--fa);color:#fff}.counter.big.hot .n,.counter.big.hot .l,.counter.big.hot .h{color:#fff}
.counter.big.zero{border-left-color:var(--ok)}.counter.big.zero .n{color:var(--ok)}
.counter.conf{border-left-color:var(--un)}.counter.conf .n{color:var(--fg)}
.counter.conf.ok{border-left-color:var(--ok)}.counter.conf.ok .n{color:var(--ok)}.counter.conf.fail{border-left-color:var(--fa)}.counter.conf.known{border-left-color:var(--kn)}.counter.conf.partial{border-left-color:var(--pa)}
.counter.big.plain{border-left-color:var(--un)}.counter.big.plain .n{color:var(--fg)}
.s-false-accept{--c:var(--fa)}.s-false-reject{--c:var(--fr)}.s-wrong-reason{--c:var(--wr)}.s-wrong-output{--c:var(--wr)}.s-crash{--c:var(--cr)}.s-timeout{--c:var(--to)}.s-protocol-error{--c:var(--pe)}.s-unsupported{--c:var(--un)}.s-pass{--c:var(--ok)}
.pill{display:inline-block;min-width:92px;text-align:center;padding:1px 8px;border-radius:999px;font-size:11.5px;font-weight:650;color:#fff;background:var(--c,#495057);white-space:nowrap}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr) max-content minmax(0,1fr);gap:4px 18px;margin:0}
dt{color:var(--mut)}dd{margin:0;word-break:break-all}
.note{margin:12px 0 0;color:var(--mut);font-size:13px}
ol.bad{margin:0;padding-left:26px}ol.bad li{margin:3px 0}details.more>summary{cursor:pointer;color:#0969da;margin:6px 0 2px}ol.bad .d,summary .d{color:var(--mut)}
table.rules{width:100%;border-collapse:collapse;margin-bottom:8px}
table.rules th,table.rules td{text-align:left;vertical-align:top;padding:7px 8px;border-bottom:1px solid #eaeef2}
table.rules thead th{font-size:12px;color:var(--mut);font-weight:600;border-bottom:2px solid var(--line)}
table.rules th:nth-child(2),table.rules td:nth-child(2){width:80px}table.rules th:nth-child(3),table.rules td:nth-child(3){width:250px}table.rules th:nth-child(4),table.rules td:nth-child(4){width:120px}
tr.sec th{background:#f6f8fa;font-size:12.5px;color:#424a53;font-weight:650}
tr.r-fail td{background:#fff5f5}
code.rule{font-weight:650}
.title{color:#424a53;font-size:13px}
.fails{margin-top:3px;font-size:12px}.fails a,.fails span{margin-right:8px;color:var(--fa);font-family:ui-monospace,Menlo,Consolas,monospace}
.lvl{font-size:11.5px;font-weight:700;padding:1px 6px;border-radius:4px;border:1px solid var(--line);white-space:nowrap}.lvl-must{background:#24292f;color:#fff;border-color:#24292f}
.num{white-space:nowrap}.frac{display:inline-block;min-width:52px;margin-left:8px;font-variant-numeric:tabular-nums}.uns{display:block;color:var(--mut);font-size:12px}
.bar{display:inline-flex;vertical-align:middle;width:120px;height:10px;border-radius:5px;background:#e9ecef;overflow:hidden}
.bar.wide{display:flex;width:100%;margin-top:6px}
.bar .p{background:var(--ok)}.bar .f{background:var(--fa)}
.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:center;padding:10px 12px;margin:0 0 10px;background:#f6f8fa;border:1px solid var(--line);border-radius:8px;position:sticky;top:0;z-index:1}
.filters label{font-size:12.5px;color:var(--mut);display:flex;gap:6px;align-items:center;white-space:nowrap}.filters .grow{flex:1}
.filters input,.filters select,.filters button{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:6px;background:#fff}
.filters input{width:100%;min-width:160px}.filters button{cursor:pointer}
.count{font-size:12.5px;color:var(--mut)}
details.v{border:1px solid #eaeef2;border-left:4px solid var(--c,var(--un));border-radius:6px;margin:5px 0;background:#fff}
details.v.s-pass{border-left-color:var(--ok-line)}details.v.s-unsupported{border-left-color:#dee2e6}
details.v>summary{cursor:pointer;padding:6px 10px;display:flex;gap:10px;align-items:center;list-style:none}
details.v>summary::-webkit-details-marker{display:none}
details.v>summary::before{content:"\25B8";color:var(--mut);font-size:11px}details.v[open]>summary::before{content:"\25BE"}
details.v>summary:hover{background:#f6f8fa}
summary .id{font-weight:600;word-break:break-all}summary .d{flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:12.5px}summary .ms{color:var(--mut);font-size:11.5px;white-space:nowrap}
details.v .body{padding:4px 14px 12px 30px;border-top:1px solid #eaeef2}
.cmp{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin:10px 0 6px}
.cmp>div{background:#f6f8fa;border-radius:6px;padding:8px 12px}.cmp p{margin:4px 0}.cmp .act{background:#fff8f0}details.s-pass .cmp .act{background:var(--ok-bg)}
.detail{white-space:pre-wrap;word-break:break-word}
.meta{color:var(--mut);font-size:12.5px;margin:6px 0}
.chip{display:inline-block;padding:0 6px;border-radius:4px;background:#eef1f4;color:#24292f;text-decoration:none;font-size:12px;margin:1px 0}a.chip:hover{background:#dde3ea}
pre{margin:4px 0 0;background:#1f2328;color:#e6edf3;padding:10px 12px;border-radius:6px;overflow:auto;max-height:320px;white-space:pre-wrap;word-break:break-word}
.empty{color:var(--mut);text-align:center;padding:12px}
footer{color:var(--mut);font-size:12px;text-align:center;margin-top:24px}
a{color:#0969da}
table.suites{border-collapse:collapse;font-variant-numeric:tabular-nums;overflow-wrap:normal}
table.suites th,table.suites td{padding:5px 12px 5px 0;text-align:right;border-bottom:1px solid #eaeef2}table.suites td{white-space:nowrap}
table.suites thead th{font-size:12px;color:var(--mut);font-weight:600;border-bottom:2px solid var(--line);vertical-align:bottom}
table.suites tbody th{text-align:left;font-weight:600}table.suites th:first-child{text-align:left}
table.suites td.hot{color:var(--fa);font-weight:700}
ul.untested{margin:4px 0 0;padding-left:20px;color:var(--mut)}
header.top a{color:#fff}
details.more.untested{margin-top:14px}details.more.untested>summary{font-weight:600}
ol.known{margin:0;padding-left:26px}ol.known li{margin:6px 0}p.reason{margin:2px 0 0;color:#424a53}
@media (max-width:820px){.wrap{padding:0 12px}.card{padding:12px}dl{grid-template-columns:max-content minmax(0,1fr)}.counters{grid-template-columns:1fr}.small{grid-template-columns:repeat(3,1fr)}.small .counter.zero{display:none}.counter{min-height:0;padding:6px 10px}.counter .n{font-size:20px}.counter.big .n{font-size:40px}.cmp{grid-template-columns:1fr}table.rules th:nth-child(2),table.rules td:nth-child(2){display:none}table.rules td:nth-child(3),table.rules th:nth-child(3),table.rules td:nth-child(4),table.rules th:nth-child(4){width:auto}.bar{width:50px}details.v>summary{flex-wrap:wrap}ol.bad .d{display:none}table.suites th,table.suites td{padding-right:4px;font-size:12px}table.suites thead th{font-size:11px}table.suites tbody th code{font-size:11.5px}h1{font-size:22px}}
body{overflow-wrap:anywhere}
@media print{.filters{display:none}details.v{break-inside:avoid}}
"#
);

const JS: &str = r#"
(function(){
var form=document.getElementById('filters');if(!form)return;form.hidden=false;
form.addEventListener('submit',function(e){e.preventDefault();});
var st=document.getElementById('f-status'),su=document.getElementById('f-suite'),q=document.getElementById('f-q'),
cnt=document.getElementById('f-count'),empty=document.getElementById('f-empty');
var rows=Array.prototype.slice.call(document.querySelectorAll('#vlist details.v'));
function apply(){
var s=st.value,u=su.value,t=q.value.trim().toLowerCase(),n=0;
rows.forEach(function(r){
var d=r.dataset,ok=(!s||(s==='unexpected'?d.unexpected==='1':d.status===s))&&(!u||d.suite===u)&&
(!t||d.id.toLowerCase().indexOf(t)>=0||d.rules.toLowerCase().indexOf(t)>=0);
r.hidden=!ok;if(ok)n++;});
cnt.textContent=n+' of '+rows.length+' shown';empty.hidden=n>0;}
st.addEventListener('change',apply);su.addEventListener('change',apply);q.addEventListener('input',apply);
document.getElementById('f-open').addEventListener('click',function(){rows.forEach(function(r){if(!r.hidden)r.open=true;});});
document.getElementById('f-close').addEventListener('click',function(){rows.forEach(function(r){r.open=false;});});
Array.prototype.forEach.call(document.querySelectorAll('[data-filter]'),function(a){
a.addEventListener('click',function(){var v=a.getAttribute('data-filter');
if(!Array.prototype.some.call(st.options,function(o){return o.value===v;}))v='';st.value=v;apply();});});
function openHash(){var h=location.hash.slice(1);if(h.indexOf('v-')!==0)return;var d=document.getElementById(h);
if(d){d.hidden=false;d.open=true;}}
window.addEventListener('hashchange',openHash);openHash();apply();
})();
"#;
