//! Results files are shared: a vendor publishes one, others render and diff it with
//! `agentconf report`. Reading one and rendering every format must never panic, and the HTML
//! and JUnit renderings must not let the file's text open markup of its own.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    agentconf_harness::fuzz::results_file(text);
});
