//! The flat reader never accepts what the strict reader would refuse or read differently: when
//! `scan_flat_object` answers, `parse_limited` gives the same tree and no duplicates, on
//! arbitrary bytes and on near-flat objects built to sit on every edge of the subset. And it does
//! answer for plain flat objects (otherwise the first property would hold vacuously).

use agentconf_json::flat::{scan_flat_object, FlatValue};
use agentconf_json::{as_text, parse_limited, Limits, MAX_DEPTH};
use proptest::prelude::*;

const RAW: &[&str] = &["seq"];

fn limits() -> impl Strategy<Value = Limits> {
    prop_oneof![
        2 => Just(Limits::DEFAULT),
        3 => (1usize..12, 0usize..12).prop_map(|(max_values, max_string_bytes)| Limits {
            max_values,
            max_string_bytes,
        }),
    ]
}

/// When the flat reader answers, the strict one agrees exactly.
fn check(bytes: &[u8], enclosing: usize, limits: &Limits) -> Result<bool, TestCaseError> {
    let Some(flat) = scan_flat_object(bytes, enclosing, limits) else {
        return Ok(false);
    };
    let text = as_text(bytes);
    prop_assert!(text.is_ok(), "flat accepted a bad envelope: {bytes:?}");
    let text = text.unwrap_or_default();
    let strict = parse_limited(text, RAW, enclosing, limits);
    prop_assert!(strict.is_ok(), "flat accepted {text:?}: {strict:?}");
    if let Ok(strict) = strict {
        prop_assert!(strict.duplicates.is_empty(), "{text:?}");
        prop_assert_eq!(flat.to_node(RAW), strict.root, "{:?}", text);
    }
    Ok(true)
}

/// Tokens from both sides of every boundary of the subset.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-c]{0,4}".prop_map(|s| format!("\"{s}\"")),
        1 => Just("\"seq\"".to_string()),
        1 => Just("\"é\\u00e9\"".to_string()),
        1 => Just("\"a\\\"b\"".to_string()),
        1 => Just("\"\u{7f}\u{1F600}\"".to_string()),
        1 => Just("\"\u{1f}\"".to_string()),
        1 => Just("\"\\ud800\"".to_string()),
        2 => prop::sample::select(&[
            "0", "-0", "1", "-1", "01", "1.0", "1e0", "1E+2", "-", "9223372036854775807",
            "18446744073709551615", "18446744073709551616", "-9223372036854775808",
            "123456789012345678", "1234567890123456789", "999999999999999999", "1e400",
        ][..]).prop_map(str::to_string),
        2 => prop::sample::select(&["true", "false", "null", "tru", "nul", "truex"][..])
            .prop_map(str::to_string),
        1 => prop::sample::select(&["{}", "[]", "[1]", "{\"a\":1}"][..]).prop_map(str::to_string),
        1 => prop::sample::select(&[" ", "\t", "\n", "\r", "\u{a0}", "\u{feff}"][..])
            .prop_map(str::to_string),
    ]
}

/// Objects made of tokens, mostly well-formed, with stray punctuation now and then.
fn near_flat() -> impl Strategy<Value = String> {
    let member = (
        token(),
        token(),
        prop::sample::select(&[":", ":", ":", " : ", ""][..]),
    )
        .prop_map(|(k, v, colon)| format!("{k}{colon}{v}"));
    (
        prop::collection::vec(member, 0..6),
        prop::sample::select(&[",", ",", ", ", ",,", ""][..]),
        prop::sample::select(&["{", "{", " {", "[", ""][..]),
        prop::sample::select(&["}", "}", "} ", "}}", "},", ""][..]),
    )
        .prop_map(|(members, comma, open, close)| format!("{open}{}{close}", members.join(comma)))
}

/// Objects entirely inside the subset.
fn plain_flat() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        "[ -!#-\\[\\]-~é😀]{0,10}".prop_map(|s| format!("\"{s}\"")),
        (-999_999_999_999_999_999i64..=999_999_999_999_999_999).prop_map(|n| n.to_string()),
        prop::sample::select(&["true", "false", "null"][..]).prop_map(str::to_string),
    ];
    prop::collection::btree_map("[a-z]{1,6}", value, 0..16).prop_map(|m| {
        let members: Vec<String> = m.into_iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        format!("{{{}}}", members.join(","))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn flat_agrees_with_strict_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..64),
        limits in limits(),
    ) {
        check(&bytes, 1, &limits)?;
    }

    #[test]
    fn flat_agrees_with_strict_on_near_flat_objects(
        text in near_flat(),
        limits in limits(),
        enclosing in prop::sample::select(&[0usize, 1, MAX_DEPTH - 1, MAX_DEPTH][..]),
    ) {
        check(text.as_bytes(), enclosing, &limits)?;
    }

    #[test]
    fn plain_flat_objects_are_read(text in plain_flat(), limits in limits()) {
        let handled = check(text.as_bytes(), 1, &Limits::DEFAULT)?;
        prop_assert!(handled, "declined a plain object: {}", text);
        // Under tight limits it may decline, but whatever it reads is still what strict reads.
        check(text.as_bytes(), 1, &limits)?;
    }
}

#[test]
fn values_come_out_as_written() {
    let flat =
        scan_flat_object(br#"{"seq":7,"s":"x","n":null}"#, 1, &Limits::DEFAULT).expect("handled");
    assert_eq!(
        flat.members(),
        &[
            ("seq", FlatValue::Int("7")),
            ("s", FlatValue::Str("x")),
            ("n", FlatValue::Null)
        ]
    );
}
