//! Receipt verification on arbitrary bytes (first byte: id tier).
#![no_main]

use agentconf_aer1::receipt::{verify_receipt, IdTier};
use agentconf_aer1::Verdict;
use agentconf_fuzz::selector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (sel, doc) = selector(data);
    let tier = if sel & 1 == 0 {
        IdTier::Core
    } else {
        IdTier::Strict
    };
    let report = verify_receipt(doc, tier);
    // The verdict is exactly "no failures", and every report serializes (the CLI prints it).
    assert_eq!(report.verdict == Verdict::Valid, report.failures.is_empty());
    serde_json::to_string(&report).expect("a receipt report serializes");
    // Strict only adds checks: whatever it accepts, core accepts.
    if tier == IdTier::Strict && report.verdict == Verdict::Valid {
        assert_eq!(verify_receipt(doc, IdTier::Core).verdict, Verdict::Valid);
    }
});
