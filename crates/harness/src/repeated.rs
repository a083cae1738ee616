//! Member names given twice in an implementation's JSON output. serde_json keeps the last of
//! them when it builds a value, so a grading that reads values alone would never see the first;
//! a verifier may keep either one, or reject the document (`AER1-JSON-DUPLICATE`). An emitter's
//! output is read for them before it is graded.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The first member name given twice in one object of `text` (at any depth), if any. Text that
/// is not JSON has none: its syntax is judged elsewhere.
pub(crate) fn repeated_member(text: &str) -> Option<String> {
    let mut found = None;
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = Walk(&mut found).deserialize(&mut de);
    found
}

/// Walks a JSON text, noting the first repeated member name.
struct Walk<'a>(&'a mut Option<String>);

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Walk(&mut *self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(name) = map.next_key::<String>()? {
            if self.0.is_none() && seen.contains(&name) {
                *self.0 = Some(name.clone());
            }
            seen.insert(name);
            map.next_value_seed(Walk(&mut *self.0))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::repeated_member;

    #[test]
    fn finds_a_repeated_name_at_any_depth() {
        assert_eq!(repeated_member(r#"{"a":1,"a":2}"#), Some("a".into()));
        assert_eq!(
            repeated_member(r#"[{"x":1},{"y":{"z":[1,{"q":1,"q":2}]}}]"#),
            Some("q".into())
        );
        // Escapes are read: "\u0061" is "a".
        assert_eq!(repeated_member(r#"{"a":1,"\u0061":2}"#), Some("a".into()));
        assert_eq!(repeated_member(r#"{"a":{"a":1},"b":[{"a":2}]}"#), None);
        assert_eq!(repeated_member("not json"), None);
    }
}
