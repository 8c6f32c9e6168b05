//! Stage zero of the diff: every number in its canonical decimal spelling (`1.0`, `1e0` and `1`
//! are one number), made once for each value a diff reads.
//!
//! A [`Canonical`] can only be made by [`Canonical::of`], so the steps that read one (the tool
//! diff, rename matching, the server fields) never canonicalise again and never compare a raw
//! spelling by mistake.

use std::ops::Deref;

use serde_json::Value;

use super::num::canonicalize_numbers;

/// A JSON value with every number canonical.
#[derive(Debug, Clone, PartialEq)]
pub struct Canonical(Value);

impl Canonical {
    /// `v` with every number canonical (a copy: the pinned and live values stay as sent).
    pub fn of(v: &Value) -> Canonical {
        let mut c = v.clone();
        canonicalize_numbers(&mut c, 0);
        Canonical(c)
    }
}

impl Deref for Canonical {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_numbers_are_equal_values() {
        let a: Value = serde_json::from_str(r#"{"max": 1.0, "n": [1e3, -0]}"#).unwrap();
        let b = json!({"max": 1, "n": [1000, 0]});
        assert_ne!(a, b);
        assert_eq!(Canonical::of(&a), Canonical::of(&b));
    }
}
