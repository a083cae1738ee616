//! Results files are shared: a vendor publishes one, others render and diff it with
//! `agentconf report`. Reading one and rendering every format must never panic, and the HTML
//! and JUnit renderings must not let the file's text open markup of its own.
#![no_main]

use agentconf_harness::report;
use agentconf_harness::results::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = parse(text) else {
        return;
    };
    let _ = report::text(&file);
    let _ = report::json(&file);
    let _ = report::markdown(&file);
    let _ = report::badge(&file);
    let junit = report::junit(&file);
    assert!(!junit.contains("<script"), "unescaped markup in JUnit");
    let html = report::html(&file);
    // The page has exactly the script elements the renderer writes itself.
    let empty = agentconf_harness::results::ResultsFile {
        header: file.header.clone(),
        results: Vec::new(),
        footer: None,
    };
    let fixed = report::html(&empty);
    assert_eq!(
        html.matches("<script").count(),
        fixed.matches("<script").count(),
        "the file's text opened a script element"
    );
    let d = report::diff(&file, &file, None);
    let _ = report::diff_text(&d);
});
