//! Adapter files (TOML): parsing and checking against the corpus ids, then using a parsed
//! adapter (exit codes, argv templates, declarations, error mapping, skips, crash patterns) as a
//! run would.
#![no_main]

use std::collections::BTreeSet;
use std::sync::OnceLock;

use agentconf_contract::call::{Call, Operation};
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
    let calls = [
        Call::receipt("r.json".into(), None),
        Call::receipt(
            "r.json".into(),
            Some(agentconf_contract::vector::Tier::Anchored),
        ),
        Call::Timeline {
            revision: "09".into(),
            timeline: "t.json".into(),
            commitment: Some("c.json".into()),
        },
        Call::Timeline {
            revision: "06".into(),
            timeline: "t.json".into(),
            commitment: None,
        },
        Call::Workflow {
            workflow: "w.json".into(),
        },
    ];
    for call in &calls {
        let _ = adapter.arguments(call);
    }
    let _ = adapter.check_persistent();
    let _ = adapter.crash_pattern(data);
    for v in corpus().iter().take(3) {
        for c in v.cases() {
            let _ = adapter.declines(&c);
            let _ = adapter.skip_reason(&c.id);
            let _ = adapter.xfail_reason(&c.id);
        }
        for op in Operation::ALL {
            let _ = adapter.mapped_rules(op, &v.id, text);
        }
    }
});
