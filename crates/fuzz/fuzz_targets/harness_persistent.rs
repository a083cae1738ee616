//! The harness's reading of persistent-mode responses: a `start` response and a `run` response
//! (with and without schema validation), then grading the answer against a corpus vector.
//! Selector bit 0: validate against protocol.schema.json; bit 1: read as a start response;
//! the next byte: which vector; the request's seq is 7.
#![no_main]

use agentconf_fuzz::{corpus, selector};
use agentconf_harness::Grading;
use agentconf_harness::{grade_run_answer, read_run_response, read_start_response, ReplyError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (sel, rest) = selector(data);
    let (which, line) = selector(rest);
    let validate = sel & 1 != 0;
    if sel & 2 != 0 {
        if let Err(e) = read_start_response(line, validate) {
            assert!(!e.is_empty());
        }
        return;
    }
    match read_run_response(line, 7, validate) {
        Ok(answer) => {
            let vectors = corpus();
            let vector = &vectors[usize::from(which) % vectors.len()];
            let _ = grade_run_answer(&vector.main_case(), answer, Grading::Strict);
        }
        Err(ReplyError::OutOfStep(why) | ReplyError::Invalid(why)) => assert!(!why.is_empty()),
    }
});
