//! The harness's reading of an emitter's output (`agentconf_harness::emitted` and
//! `emitted_receipt`): whatever an implementation writes, grading it never panics, passes only
//! when it is the expected timeline or receipt, and every fault names a catalogue rule. Selector: which emitter vector of the corpus (the first
//! byte); the rest is the output.
#![no_main]

use agentconf_fuzz::{corpus, selector};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (which, output) = selector(data);
    agentconf_harness::fuzz::emitted_output(corpus(), usize::from(which), output);
});
