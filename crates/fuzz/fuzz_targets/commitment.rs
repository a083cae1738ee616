//! Commitment parsing: arbitrary bytes never panic, and a well-formed commitment written back
//! out parses to the same commitment.
#![no_main]

use agentconf_aer1::commitment::parse_commitment;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match parse_commitment(data) {
        Ok(c) => {
            let written = c.to_json();
            let again = parse_commitment(written.as_bytes())
                .unwrap_or_else(|f| panic!("{written} does not parse back: {f:?}"));
            assert_eq!(again, c);
        }
        Err(findings) => assert!(!findings.is_empty()),
    }
});
