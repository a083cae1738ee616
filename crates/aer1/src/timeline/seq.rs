//! Reading `seq` the way the kit does: an integral JSON number, `1.0` accepted and written `1`.

use std::borrow::Cow;

use crate::integer::normalise_integer;
use crate::json::{Node, Num};

/// Why `seq` is not an integer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotInteger {
    /// What was found, for the message: `1.5`, `a string`, ...
    pub found: String,
}

/// The decimal digits of `seq` as the preimage writes them. Integer literals are taken exactly,
/// whatever their size (no rounding through 64 bits); literals with a fraction or exponent are
/// read as a double and accepted when its value is integral, as Python's `float.is_integer`.
pub fn seq_digits<'a>(node: &Node<'a>) -> Result<Cow<'a, str>, NotInteger> {
    let num = match node {
        Node::Number(n) => *n,
        other => {
            return Err(NotInteger {
                found: other.kind().to_string(),
            })
        }
    };
    match num {
        Num::Text(text) if !text.contains(['.', 'e', 'E']) => Ok(normalise_integer(text)),
        Num::Text(text) => match text.parse::<f64>() {
            Ok(v) if v.is_finite() && v.fract() == 0.0 => Ok(Cow::Owned(integral_to_decimal(v))),
            _ => Err(NotInteger {
                found: clip_number(text),
            }),
        },
        Num::U64(v) => Ok(Cow::Owned(v.to_string())),
        Num::I64(v) => Ok(Cow::Owned(v.to_string())),
        Num::F64(v) if v.is_finite() && v.fract() == 0.0 => Ok(Cow::Owned(integral_to_decimal(v))),
        Num::F64(v) => Err(NotInteger {
            found: v.to_string(),
        }),
    }
}

fn clip_number(text: &str) -> String {
    crate::text::clip(text, 40)
}

/// The exact decimal value of an integral double (Python's `int(x)`), however large.
fn integral_to_decimal(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let sign = if v < 0.0 { "-" } else { "" };
    let a = v.abs();
    if a < 9_007_199_254_740_992.0 {
        // Below 2^53 the value fits a u64 exactly.
        return format!("{sign}{}", a as u64);
    }
    // a = mantissa * 2^exponent with exponent >= 1 here; multiply out in base 10^9 limbs.
    let bits = a.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let mut limbs: Vec<u64> = vec![mantissa % 1_000_000_000, mantissa / 1_000_000_000];
    for _ in 0..exponent {
        let mut carry = 0;
        for limb in &mut limbs {
            let x = *limb * 2 + carry;
            *limb = x % 1_000_000_000;
            carry = x / 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut out = String::from(sign);
    let mut iter = limbs.iter().rev();
    if let Some(top) = iter.next() {
        out.push_str(&top.to_string());
    }
    for limb in iter {
        out.push_str(&format!("{limb:09}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(text: &str) -> Result<String, NotInteger> {
        seq_digits(&Node::Number(Num::Text(text))).map(Cow::into_owned)
    }

    #[test]
    fn integral_values_are_accepted() {
        assert_eq!(digits("1").unwrap(), "1");
        assert_eq!(digits("1.0").unwrap(), "1");
        assert_eq!(digits("1e0").unwrap(), "1");
        assert_eq!(digits("10.000").unwrap(), "10");
        assert_eq!(digits("-0").unwrap(), "0");
        assert_eq!(digits("-0.0").unwrap(), "0");
        assert_eq!(digits("-3").unwrap(), "-3");
        assert_eq!(
            digits("18446744073709551616").unwrap(),
            "18446744073709551616"
        );
        assert_eq!(digits("1e20").unwrap(), "100000000000000000000");
        // Python: int(1e23) == 99999999999999991611392
        assert_eq!(digits("1e23").unwrap(), "99999999999999991611392");
        assert_eq!(digits("9007199254740993.0").unwrap(), "9007199254740992");
    }

    #[test]
    fn non_integers_are_rejected() {
        for bad in ["1.5", "1e400", "-1e400", "1e-1"] {
            assert!(digits(bad).is_err(), "{bad}");
        }
        assert_eq!(
            seq_digits(&Node::Bool(true)).unwrap_err().found,
            "a boolean"
        );
        assert_eq!(seq_digits(&Node::Null).unwrap_err().found, "null");
    }
}
