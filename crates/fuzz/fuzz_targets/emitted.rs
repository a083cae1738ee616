//! The harness's reading of an emitter's output (`agentconf_harness::emitted` and
//! `emitted_receipt`): whatever an implementation writes, grading it never panics, passes only
//! when it is the expected timeline or receipt, and every fault names a catalogue rule. Selector: which emitter vector of the corpus (the first
//! byte); the rest is the output.
#![no_main]

use agentconf_contract::vector::Expectation;
use agentconf_contract::vector::Suite;
use agentconf_fuzz::{corpus, selector};
use agentconf_harness::emitted::{compare, expected_timeline, grade_any};
use agentconf_harness::Status;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (which, output) = selector(data);
    let emitters: Vec<_> = corpus()
        .iter()
        .filter(|v| {
            v.suite == Suite::Aer1EmitTimeline
                || (v.suite == Suite::Aer1EmitReceipt && v.expectation == Expectation::Valid)
        })
        .collect();
    let Some(v) = emitters.get(usize::from(which) % emitters.len().max(1)) else {
        return;
    };
    let (status, detail) = grade_any(&v.main_case(), output);
    assert!(
        matches!(status, Status::Pass | Status::WrongOutput),
        "{detail}"
    );
    let steps = v
        .input_bytes("steps")
        .and_then(|b| agentconf_contract::emit::TimelineSteps::parse(&b).ok());
    if let (Suite::Aer1EmitReceipt, Some(payload), Some(meta)) =
        (v.suite, v.input_bytes("payload"), v.input_bytes("meta"))
    {
        let meta = agentconf_contract::emit::ReceiptMeta::parse(&meta).expect("the corpus's meta");
        let faults = agentconf_harness::emitted::compare_receipt(&payload, &meta, output);
        assert_eq!(faults.is_empty(), status == Status::Pass);
        for f in faults {
            assert_eq!(agentconf_rules::Rule::from_id(f.rule.id()), Some(f.rule));
        }
    }
    if let Some(steps) = steps {
        let (want, _) = expected_timeline(&steps);
        let faults = compare(&want, output);
        assert_eq!(faults.is_empty(), status == Status::Pass);
        for f in faults {
            assert_eq!(agentconf_rules::Rule::from_id(f.rule.id()), Some(f.rule));
        }
    }
});
