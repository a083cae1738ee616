//! The harness's reading of persistent-mode responses: a `start` response and a `run` response
//! (with and without schema validation), then grading the answer against a corpus vector.
//! Selector bit 0: validate against protocol.schema.json; bit 1: read as a start response;
//! the next byte: which vector; the request's seq is 7.
#![no_main]

use agentconf_fuzz::{corpus, selector};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (sel, rest) = selector(data);
    let (which, line) = selector(rest);
    let (validate, start) = (sel & 1 != 0, sel & 2 != 0);
    agentconf_harness::fuzz::persistent_reply(corpus(), start, validate, usize::from(which), line);
});
