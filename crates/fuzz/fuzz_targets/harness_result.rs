//! The harness's reading of an implementation's one-shot output (the optional result object),
//! and grading it against a vector. Selector: the exit code's meaning (bits 0-1), the grading
//! (bit 2) and which corpus vector to grade against (the next byte).
#![no_main]

use agentconf_contract::exit::ExitMeaning;
use agentconf_contract::result::parse_result;
use agentconf_fuzz::{corpus, selector};
use agentconf_harness::{grade_verdict, Grading};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (sel, rest) = selector(data);
    let (which, stdout) = selector(rest);
    let exit = match sel & 3 {
        0 => ExitMeaning::Accept,
        1 => ExitMeaning::Reject,
        2 => ExitMeaning::Unsupported,
        _ => ExitMeaning::Crash,
    };
    let grading = if sel & 4 == 0 {
        Grading::Strict
    } else {
        Grading::Loose
    };
    match parse_result(stdout, exit) {
        Ok(Some(result)) => {
            // Every rule the harness accepted is a catalogue id (by type), and reads back as one.
            for r in &result.rules {
                assert_eq!(agentconf_rules::Rule::from_id(r.id()), Some(*r));
            }
            let vectors = corpus();
            let v = &vectors[usize::from(which) % vectors.len()];
            let _ = grade_verdict(
                &v.main_case(),
                exit == ExitMeaning::Accept,
                &result.rules,
                grading,
            );
        }
        Ok(None) => assert!(std::str::from_utf8(stdout).is_ok_and(|t| t.trim().is_empty())),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
