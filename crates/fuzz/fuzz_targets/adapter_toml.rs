//! Adapter files (TOML): parsing and checking against the corpus ids, then using a parsed
//! adapter (exit codes, argv templates, declarations, error mapping, skips, crash patterns) as a
//! run would.
#![no_main]

use agentconf_fuzz::corpus;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    agentconf_harness::fuzz::adapter_file(text, corpus());
});
