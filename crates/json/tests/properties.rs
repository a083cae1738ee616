//! Property tests (proptest): on arbitrary JSON values, the strict reader agrees with serde_json,
//! and the streaming splitter, fed any read sizes, yields exactly the array's elements. (The fuzz
//! target `json_strict` checks the same on arbitrary bytes; these run in every `cargo test`.)

use std::io::Read;

use agentconf_json::split::{ArraySplitter, Piece};
use agentconf_json::{parse, Node, Num};
use proptest::prelude::*;
use serde_json::{Map, Number, Value};

/// Strings weighted to what breaks scanners: quotes, backslashes, controls, non-BMP characters.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => any::<char>(),
            1 => Just('"'),
            1 => Just('\\'),
            1 => Just(']'),
            1 => Just(','),
            1 => (0u8..0x20).prop_map(char::from),
            1 => Just('\u{1F600}'),
        ],
        0..12,
    )
    .prop_map(|c| c.into_iter().collect())
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// The strict reader's node as a serde_json value, for comparison.
fn to_value(n: &Node<'_>) -> Value {
    match n {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(*b),
        Node::Number(Num::U64(u)) => Value::from(*u),
        Node::Number(Num::I64(i)) => Value::from(*i),
        Node::Number(Num::F64(f)) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Node::Number(Num::Text(t)) => serde_json::from_str(t).unwrap_or(Value::Null),
        Node::String(s) => Value::String(s.to_string()),
        Node::Array(items) => Value::Array(items.iter().map(to_value).collect()),
        Node::Object(o) => Value::Object(
            o.members
                .iter()
                .map(|(k, v)| (k.to_string(), to_value(v)))
                .collect(),
        ),
    }
}

/// A reader handing out `step` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn write(v: &Value, pretty: bool) -> String {
    let text = if pretty {
        serde_json::to_string_pretty(v)
    } else {
        serde_json::to_string(v)
    };
    text.expect("a serde_json value serializes")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn the_strict_reader_reads_what_serde_json_writes(v in value(), pretty in any::<bool>()) {
        let text = write(&v, pretty);
        let parsed = parse(&text, &[]).expect("strict reader accepts serde_json's output");
        prop_assert!(parsed.duplicates.is_empty());
        prop_assert_eq!(to_value(&parsed.root), v);
    }

    #[test]
    fn the_splitter_yields_the_elements_whatever_the_read_sizes(
        items in prop::collection::vec(value(), 0..8),
        step in 1usize..20,
        pretty in any::<bool>(),
    ) {
        let text = write(&Value::Array(items.clone()), pretty);
        let mut splitter = ArraySplitter::new(Trickle { data: text.as_bytes(), step }, 1 << 20);
        let mut got = Vec::new();
        loop {
            match splitter.next_piece() {
                Ok(Piece::Element { bytes, .. }) => {
                    got.push(serde_json::from_slice::<Value>(bytes).expect("an element parses"));
                }
                Ok(Piece::End) => break,
                Err(e) => return Err(TestCaseError::fail(format!("{e:?} on {text}"))),
            }
        }
        prop_assert_eq!(got, items);
    }
}
