//! Adapter files (TOML): parsing and checking against the corpus ids, then using a parsed
//! adapter (exit codes, argv templates, error mapping) as a run would.
#![no_main]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use agentconf_fuzz::corpus;
use agentconf_harness::adapter::Adapter;
use libfuzzer_sys::fuzz_target;

fn ids() -> &'static BTreeSet<String> {
    static IDS: OnceLock<BTreeSet<String>> = OnceLock::new();
    IDS.get_or_init(|| corpus().iter().map(|v| v.id.clone()).collect())
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(adapter) = Adapter::parse(text, ids()) else {
        return;
    };
    for code in [
        None,
        Some(0),
        Some(1),
        Some(2),
        Some(89),
        Some(-1),
        Some(i32::MAX),
    ] {
        let _ = adapter.exit_meaning(code);
    }
    let mut values = BTreeMap::new();
    values.insert("timeline", "t.json".to_string());
    values.insert("commitment", "c.json".to_string());
    for op in [
        "aer1-receipt",
        "aer1-timeline",
        "aer1-workflow",
        "grp-admit",
    ] {
        let _ = adapter.argv(op, &["a".to_string()], &values);
    }
    for v in corpus().iter().take(3) {
        let _ = adapter.mapped_rules(&v.id, text);
        let _ = adapter.skip_reason(&v.id);
        let _ = adapter.xfail_reason(&v.id);
    }
});
