//! Receipt verification on arbitrary bytes (first byte: the tier).
#![no_main]

use agentconf_aer1::receipt::{verify_receipt, Tier};
use agentconf_aer1::Verdict;
use agentconf_fuzz::selector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (sel, doc) = selector(data);
    let tier = Tier::ALL[usize::from(sel) % Tier::ALL.len()];
    let report = verify_receipt(doc, tier);
    // The verdict is exactly "no failures", and every report serializes (the CLI prints it).
    assert_eq!(report.verdict == Verdict::Valid, report.failures.is_empty());
    serde_json::to_string(&report).expect("a receipt report serializes");
    assert_eq!(report.tier, tier.as_str());
    // Every tier only adds checks to core, and anchored to strict: whatever a tier accepts, the
    // tiers below it accept.
    if report.verdict == Verdict::Valid {
        assert_eq!(verify_receipt(doc, Tier::Core).verdict, Verdict::Valid);
        if tier == Tier::Anchored {
            assert_eq!(verify_receipt(doc, Tier::Strict).verdict, Verdict::Valid);
        }
    }
});
