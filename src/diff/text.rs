//! Text helpers: whitespace-only changes and hidden characters.

use std::collections::BTreeSet;

use serde_json::Value;

use super::MAX_DEPTH;
use crate::json::pointer_token;

/// Zero-width, bidi-control and tag characters (RULES.md `hidden-characters`).
pub fn is_hidden(c: char) -> bool {
    matches!(c as u32,
        0x200B..=0x200F | 0x2060..=0x2064 | 0xFEFF | 0x202A..=0x202E | 0x2066..=0x2069 | 0xE0000..=0xE007F)
}

pub fn has_hidden(s: &str) -> bool {
    s.chars().any(is_hidden)
}

/// The text for a one-line message: every hidden or control character (line breaks included)
/// written as `\u{XXXX}`; never raw.
pub fn escape_hidden(s: &str) -> String {
    crate::json::escape_line(s)
}

/// Equal apart from runs of whitespace and leading/trailing whitespace.
pub fn same_words(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// Every string (values and object keys) in `v` that carries hidden characters.
pub fn hidden_strings(v: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    scan(v, "", 0, &mut |_, s| {
        out.insert(s.to_string());
    });
    out
}

/// Call `f(pointer, text)` for every string value or key in `v` that carries hidden characters.
pub fn scan(v: &Value, ptr: &str, depth: usize, f: &mut dyn FnMut(&str, &str)) {
    if depth > MAX_DEPTH * 4 {
        return;
    }
    match v {
        Value::String(s) if has_hidden(s) => f(ptr, s),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                scan(x, &format!("{ptr}/{i}"), depth + 1, f);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{ptr}/{}", pointer_token(k));
                if has_hidden(k) {
                    f(&p, k);
                }
                scan(x, &p, depth + 1, f);
            }
        }
        _ => {}
    }
}

fn any_hidden(v: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH * 4 {
        return false;
    }
    match v {
        Value::String(s) => has_hidden(s),
        Value::Array(a) => a.iter().any(|x| any_hidden(x, depth + 1)),
        Value::Object(m) => m.iter().any(|(k, x)| has_hidden(k) || any_hidden(x, depth + 1)),
        _ => false,
    }
}

/// Where `new` carries hidden-character text that `old` nowhere carried: (pointer, text).
pub fn new_hidden(old: Option<&Value>, new: &Value) -> Vec<(String, String)> {
    if !any_hidden(new, 0) {
        return Vec::new();
    }
    let known = old.map(hidden_strings).unwrap_or_default();
    let mut out = Vec::new();
    scan(new, "", 0, &mut |p, s| {
        if !known.contains(s) {
            out.push((p.to_string(), s.to_string()));
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_hidden("a\u{200B}b\u{E0041}"), "a\\u{200B}b\\u{E0041}");
        assert!(same_words(" a  b\n", "a b"));
        assert!(!same_words("a b", "ab"));
    }
}
