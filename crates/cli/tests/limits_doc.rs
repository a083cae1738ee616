//! The README's "Resource limits" table states the limits the code enforces: each row's value is
//! computed here from the constant itself, so changing a limit without the table fails.

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README")
}

fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `64 MiB (67,108,864 bytes)`, the way the table writes sizes.
fn size(bytes: u64) -> String {
    let (unit, div) = [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        .into_iter()
        .find(|(_, d)| bytes >= *d && bytes.is_multiple_of(*d))
        .expect("a whole number of KiB");
    format!("{} {unit} ({} bytes)", bytes / div, grouped(bytes))
}

#[test]
fn the_readme_table_matches_the_constants() {
    let rows: Vec<(&str, String)> = vec![
        (
            "document size",
            size(agentconf_aer1::timeline::DEFAULT_MAX_DOCUMENT_BYTES),
        ),
        (
            "timeline entry size",
            size(agentconf_aer1::timeline::DEFAULT_MAX_ENTRY_BYTES as u64),
        ),
        (
            "values per document",
            grouped(agentconf_json::DEFAULT_MAX_VALUES as u64),
        ),
        (
            "string length",
            size(agentconf_json::DEFAULT_MAX_STRING_BYTES as u64),
        ),
        ("nesting depth", agentconf_json::MAX_DEPTH.to_string()),
        (
            "workflow steps",
            grouped(agentconf_aer1::workflow::MAX_WORKFLOW_STEPS as u64),
        ),
        (
            "failures listed",
            grouped(agentconf_aer1::timeline::DEFAULT_MAX_FAILURES as u64),
        ),
        (
            "GRP event line",
            size(agentconf_grp::admission::MAX_EVENT_BYTES as u64),
        ),
        (
            "implementation output",
            size(agentconf_harness::DEFAULT_CAPTURE_BYTES as u64),
        ),
        (
            "time per vector",
            format!("{} s", agentconf_harness::DEFAULT_TIMEOUT_SECS),
        ),
        (
            "persistent response line",
            size(agentconf_harness::MAX_RESPONSE_LINE_BYTES as u64),
        ),
        (
            "GRP decision line",
            size(agentconf_harness::MAX_DECISION_LINE_BYTES as u64),
        ),
        (
            "adapter file",
            size(agentconf_harness::adapter::MAX_ADAPTER_BYTES),
        ),
        (
            "results file line",
            size(agentconf_harness::results::MAX_LINE_BYTES as u64),
        ),
        (
            "results file lines",
            format!(
                "the corpus's cases ({} for",
                grouped(agentconf_harness::results::MAX_CASES_WITHOUT_CORPUS as u64)
            ),
        ),
        ("workers", agentconf_harness::MAX_JOBS.to_string()),
    ];
    let text = readme();
    let section = text
        .split("## Resource limits")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Resource limits section");
    let table: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| "))
        .skip(1)
        .collect();
    for (label, value) in &rows {
        let row = table
            .iter()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("no row {label:?}"));
        let cell = row.split(" | ").nth(1).unwrap_or_default();
        assert!(
            cell.starts_with(value.as_str()),
            "{label}: the table says {cell:?}, the code {value:?}"
        );
    }
    assert_eq!(
        table.len(),
        rows.len(),
        "a row without a check, or a check without a row"
    );
}
