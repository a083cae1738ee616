//! The revision-09 preimage serializer: for any member values, the preimage is one JSON object
//! that serde_json reads back as exactly the eight members with the same values, in code-point
//! order, with no whitespace between tokens.
#![no_main]

use agentconf_aer1::digest::{write_preimage, PreimageFields};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

#[derive(Arbitrary, Debug)]
struct Fields {
    close: bool,
    id: String,
    job_id: String,
    output_hash: [u8; 32],
    prev_digest: String,
    provenance_class: String,
    /// `seq` is always decimal digits by the time it reaches the serializer.
    seq: u128,
    tool: String,
}

fuzz_target!(|f: Fields| {
    let seq = f.seq.to_string();
    let fields = PreimageFields {
        close: f.close,
        id: &f.id,
        job_id: &f.job_id,
        output_hash: &f.output_hash,
        prev_digest: &f.prev_digest,
        provenance_class: &f.provenance_class,
        seq: &seq,
        tool: &f.tool,
    };
    let mut out = Vec::new();
    write_preimage(&mut out, &fields);
    let text = std::str::from_utf8(&out).expect("the preimage is UTF-8");
    // Every byte outside strings is a structural one: the serializer adds no whitespace.
    let parsed: serde_json::Map<String, Value> =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{text:?} is not JSON: {e}"));
    let names: Vec<&str> = parsed.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "close",
            "id",
            "job_id",
            "output_hash",
            "prev_digest",
            "provenance_class",
            "seq",
            "tool"
        ]
    );
    assert_eq!(parsed["close"], Value::Bool(f.close));
    assert_eq!(parsed["id"], Value::String(f.id.clone()));
    assert_eq!(parsed["job_id"], Value::String(f.job_id.clone()));
    let hex: String = f.output_hash.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(parsed["output_hash"], Value::String(hex));
    assert_eq!(parsed["prev_digest"], Value::String(f.prev_digest.clone()));
    assert_eq!(
        parsed["provenance_class"],
        Value::String(f.provenance_class.clone())
    );
    assert_eq!(parsed["tool"], Value::String(f.tool.clone()));
    // seq is written as its digits, a JSON integer.
    assert!(text.contains(&format!("\"seq\":{seq},")));
    // Only ASCII leaves the serializer (json.dumps with ensure_ascii).
    assert!(text.is_ascii(), "non-ASCII in {text:?}");
    // Key order is code-point order, as the keys appear in the text.
    let mut at = 0;
    for name in names {
        let found = text[at..]
            .find(&format!("\"{name}\":"))
            .expect("key present")
            + at;
        at = found + 1;
    }
});
