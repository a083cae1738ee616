//! The strict JSON reader and the streaming array splitter, differentially against serde_json.
//!
//! - `parse` (without raw keys) accepts exactly what serde_json accepts, but for nesting past the
//!   limit and unpaired surrogate escapes, which both refuse with different errors. With raw
//!   keys it is only run for panics: a raw `entry_count` of `1e400` is read as text by design.
//! - The splitter, fed a trickle, yields the same elements serde_json finds in the array.
#![no_main]

use agentconf_fuzz::{selector, Trickle};
use agentconf_json::split::{ArraySplitter, Piece};
use agentconf_json::{as_text, parse, JsonError};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let (sel, doc) = selector(data);
    let reference: Result<Value, _> = serde_json::from_slice(doc);
    if let Ok(text) = as_text(doc) {
        let _ = parse(text, &["seq", "entry_count"]);
        match parse(text, &[]) {
            Ok(_) => assert!(reference.is_ok(), "strict accepted what serde_json refused"),
            Err(JsonError::TooDeep | JsonError::LoneSurrogate { .. }) => {}
            Err(e) => assert!(reference.is_err(), "strict refused valid JSON: {e}"),
        }
    }

    // The splitter.
    let step = usize::from(sel & 15) + 1;
    let mut splitter = ArraySplitter::new(Trickle { data: doc, step }, 1 << 20);
    let mut elements: Vec<Value> = Vec::new();
    let mut all_parsed = true;
    let ended = loop {
        match splitter.next_piece() {
            Ok(Piece::Element { bytes, .. }) => match serde_json::from_slice(bytes) {
                Ok(v) => elements.push(v),
                Err(_) => all_parsed = false,
            },
            Ok(Piece::End) => break true,
            Err(_) => break false,
        }
    };
    if let Ok(Value::Array(items)) = &reference {
        assert!(ended, "the splitter failed on a valid array");
        assert!(all_parsed, "an element of a valid array did not parse");
        assert_eq!(&elements, items);
    }
    if ended && all_parsed {
        // Every element parsed and the array closed: serde_json agrees it is an array (except
        // past its nesting limit, which the splitter does not count).
        if let Err(e) = &reference {
            assert!(e.to_string().starts_with("recursion limit"), "{e}");
        }
    }
});
