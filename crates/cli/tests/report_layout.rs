//! The HTML report of a partial implementation, laid out by a real browser (Debian's `chromium`,
//! headless) at a phone's width (390 px) and a laptop's (1280 px): no horizontal scroll, and no
//! table cell narrower than its text needs (the lesser of 10 characters and its longest word).
//! The page is measured inside an iframe of the exact width, since a headless window has a
//! minimum width of its own. Without chromium the test skips with one line, except under
//! `CI=true`, where .ci/run installs it and a missing browser is a failure.

use std::path::Path;
use std::process::Command;

// The shared helpers; this test uses the directory alone.
#[allow(dead_code)]
mod support;

use support::TempDir;

/// The script that measures the framed page and writes what it found into the outer page's
/// `data-measure` attribute, which `--dump-dom` prints.
const MEASURE: &str = r#"<script>
window.addEventListener('load', () => {
  const f = document.getElementById('f');
  const d = f.contentDocument, doc = d.documentElement;
  const probe = d.createElement('span'); probe.textContent = 'x'.repeat(100);
  probe.style.position = 'absolute'; d.body.appendChild(probe);
  const charW = probe.getBoundingClientRect().width / 100; probe.remove();
  const narrow = [];
  for (const t of d.querySelectorAll('table')) {
    if (t.offsetParent === null) continue;
    for (const row of t.rows) for (const c of row.cells) {
      if (c.offsetParent === null) continue;
      const text = c.textContent.trim(); if (!text) continue;
      const need = Math.min(10, Math.max(...text.split(/\s+/).map(w => w.length)));
      const w = c.getBoundingClientRect().width / charW;
      if (w + 0.5 < need) narrow.push(text.slice(0, 40) + ' (' + w.toFixed(1) + ' of ' + need + ')');
    }
  }
  const wide = [];
  for (const e of d.body.querySelectorAll('*')) {
    if (e.offsetParent !== null && e.getBoundingClientRect().right > doc.clientWidth + 0.5)
      wide.push(e.tagName + '.' + e.className);
  }
  document.body.setAttribute('data-measure', JSON.stringify({
    viewport: f.clientWidth, scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth,
    height: doc.scrollHeight, narrow: narrow.slice(0, 5), wide: wide.slice(0, 5)}));
});
</script>"#;

/// `html` framed at `width` pixels, measured by chromium: the measurement as JSON.
fn measure(browser: &Path, dir: &TempDir, html: &str, width: u32) -> serde_json::Value {
    let escaped = agentconf_json::text::html_text(html);
    let outer = format!(
        "<!doctype html><html><body style=\"margin:0\"><iframe id=\"f\" \
         style=\"border:0;width:{width}px;height:800px\" srcdoc=\"{escaped}\"></iframe>\
         {MEASURE}</body></html>"
    );
    let file = dir.path().join(format!("framed-{width}.html"));
    std::fs::write(&file, outer).unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--window-size=1400,900",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", file.display()))
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let attribute = dom
        .split("data-measure=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| {
            panic!(
                "no measurement at {width} px: {}",
                &dom[..dom.len().min(300)]
            )
        });
    let json = attribute
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap()
}

fn chromium() -> Option<std::path::PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.exists())
}

#[test]
fn a_partial_report_reads_on_a_phone_and_a_laptop() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "chromium is not installed, and CI=true says the layout test must run here"
        );
        eprintln!("SKIPPED a_partial_report_reads_on_a_phone_and_a_laptop: no chromium");
        return;
    };
    let dir = TempDir::new("layout");
    // A revision-09 timeline verifier without commitments: the reference, scoped by an adapter.
    let adapter = dir.path().join("timeline-09.toml");
    std::fs::write(
        &adapter,
        format!(
            "name = \"timeline-09\"\ncommand = [{:?}, \"impl\"]\nimplements = [\"aer1-timeline\"]\n\
             revisions = [\"09\"]\n\n[operations.aer1-timeline]\ncommitments = false\n",
            env!("CARGO_BIN_EXE_agentconf")
        ),
    )
    .unwrap();
    let results = dir.path().join("results.jsonl");
    let html = dir.path().join("report.html");
    let run = Command::new(env!("CARGO_BIN_EXE_agentconf"))
        .arg("run")
        .arg("--adapter")
        .arg(&adapter)
        .arg("--out")
        .arg(&results)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("PARTIAL"), "a partial implementation's page");
    for width in [390, 1280] {
        let m = measure(&browser, &dir, &page, width);
        assert_eq!(m["viewport"], width, "{m}");
        assert!(
            m["scrollWidth"].as_u64() <= m["clientWidth"].as_u64(),
            "{width} px: scrolls sideways: {m}"
        );
        assert_eq!(m["narrow"], serde_json::json!([]), "{width} px: {m}");
        println!("{width} px: {m}");
    }
}
