//! Workflow verification on arbitrary bytes.
#![no_main]

use agentconf_aer1::workflow::verify_workflow;
use agentconf_aer1::Verdict;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let report = verify_workflow(data);
    assert_eq!(report.verdict == Verdict::Valid, report.failures.is_empty());
    if report.verdict == Verdict::Valid {
        assert!(report.computed_merkle_root.is_some());
    }
    serde_json::to_string(&report).expect("a workflow report serializes");
});
