//! Reading JSON that mcp-pin did not just write (a lockfile, a client config, a report shard):
//! a key that occurs twice in one object is an error that names the key and its line.
//!
//! serde_json keeps the last of two equal keys: a lockfile from a pull request with a second
//! `"t"` entry holding another definition would be read with the second one winning, while a
//! reviewer reads the first in the diff. TOML needs no such check: the TOML parser refuses a
//! key defined twice (with its line), as the specification requires.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parse `text` as JSON; a key twice in one object is an error ("duplicate key `k`", with the
/// line and column serde_json gives every error).
pub fn from_str(text: &str) -> Result<Value, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_str(text);
    let v = Unique.deserialize(&mut d)?;
    d.end()?;
    Ok(v)
}

/// The error for a key seen twice (visitors that keep keys themselves use it too).
pub fn duplicate<E: de::Error>(key: &str) -> E {
    E::custom(format_args!("duplicate key `{}`: a key may occur once in an object", crate::json::escape_line(key)))
}

/// A JSON value, built with every object's keys checked for repeats.
struct Unique;

impl<'de> DeserializeSeed<'de> for Unique {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// serde_json's `arbitrary_precision` hands a number over as a one-entry map under this key.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

impl<'de> Visitor<'de> for Unique {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Unique)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let Some(mut key) = map.next_key::<String>()? else {
            return Ok(Value::Object(out));
        };
        if key == NUMBER_TOKEN {
            let text: String = map.next_value()?;
            return text.parse::<Number>().map(Value::Number).map_err(de::Error::custom);
        }
        loop {
            if out.contains_key(&key) {
                return Err(duplicate(&key));
            }
            let v = map.next_value_seed(Unique)?;
            out.insert(key, v);
            match map.next_key::<String>()? {
                Some(k) => key = k,
                None => return Ok(Value::Object(out)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_twice_is_an_error_with_its_line() {
        let e = from_str("{\n  \"a\": 1,\n  \"b\": {\"x\": 1,\n    \"x\": 2}\n}").unwrap_err();
        assert!(e.to_string().contains("duplicate key `x`"), "{e}");
        assert_eq!(e.line(), 4);
        let e = from_str(r#"[{"t": 1}, {"t": 2, "t": 3}]"#).unwrap_err();
        assert!(e.to_string().contains("duplicate key `t`"), "{e}");
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, 2.50, -3, 1e400, 18446744073709551616, true, null, "s\u00e9"], "b": {}, "c": []}"#,
            "12",
            r#""x""#,
            "  null ",
        ] {
            assert_eq!(from_str(text).unwrap(), serde_json::from_str::<Value>(text).unwrap(), "{text}");
        }
        assert!(from_str("{} x").is_err(), "trailing text");
        assert!(from_str("{\"a\": }").is_err());
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(from_str(&deep).is_err(), "the recursion limit holds");
    }
}
