//! mcp-pin's canonical JSON writer: object keys sorted (by code point), two-space indent,
//! numbers as the server spelled them, invisible and direction-changing characters escaped so a
//! reviewer sees them in a pull request diff. Independent of serde_json's map order, so a
//! `preserve_order` feature anywhere in the build cannot change the lockfile.

use serde_json::Value;
use std::fmt::Write;

/// Render `value` canonically, with a trailing newline.
pub fn to_canonical_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out.push('\n');
    out
}

/// The canonical text of `value` as it reads nested `level` deep in a canonical document
/// (inner lines indented from there; no trailing newline).
pub fn to_canonical_string_at(value: &Value, level: usize) -> String {
    let mut out = String::new();
    write_value(&mut out, value, level);
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                indent(out, level + 1);
                write_value(out, item, level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                indent(out, level + 1);
                write_string(out, key);
                out.push_str(": ");
                write_value(out, &map[key.as_str()], level + 1);
            }
            out.push('\n');
            indent(out, level);
            out.push('}');
        }
    }
}

/// Characters that are invisible or change text direction (RULES.md `hidden-characters`), plus
/// other format characters a reviewer could not see.
pub fn is_hidden_char(c: char) -> bool {
    matches!(c as u32,
        0x200B..=0x200F | 0x2060..=0x2064 | 0xFEFF | 0x202A..=0x202E | 0x2066..=0x2069
        | 0xE0000..=0xE007F | 0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5
        | 0x180B..=0x180F | 0x3164 | 0xFFA0 | 0xFFF9..=0xFFFB)
}

/// Write a JSON string literal; control and hidden characters as `\uXXXX` escapes.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (0x7F..=0x9F).contains(&(c as u32)) || is_hidden_char(c) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04x}", unit));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Text shown to a person: hidden and control characters spelled as `\u{200B}`; line breaks
/// and tabs kept (for multi-line text such as an error's own lines).
pub fn escape_for_display(s: &str) -> String {
    escape_chars(s, |c| c == '\n' || c == '\t')
}

/// Text shown to a person on one line (a name, a change message): every hidden or control
/// character, line breaks and tabs included, spelled as `\u{000A}`, so nothing a server wrote
/// can start a line of its own in a report.
pub fn escape_line(s: &str) -> String {
    escape_chars(s, |_| false)
}

fn escape_chars(s: &str, keep: impl Fn(char) -> bool) -> String {
    let shown = |c: char| keep(c) || !(is_hidden_char(c) || c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'));
    if s.chars().all(shown) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if shown(c) {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{{{:04X}}}", c as u32);
        }
    }
    out
}

/// `s` as one reference token of a JSON Pointer (RFC 6901): `~` written `~0`, `/` written `~1`.
pub fn pointer_token(s: &str) -> String {
    if !s.contains(['~', '/']) {
        return s.to_string();
    }
    s.replace('~', "~0").replace('/', "~1")
}

/// The text of one JSON Pointer reference token (the reverse of [`pointer_token`]).
pub fn from_pointer_token(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_keys_keeps_number_spelling_and_escapes_hidden() {
        let v: Value = serde_json::from_str(r#"{"b":1e3,"a":{"z":[1.0,2],"y":"x\u200by"},"c":[],"d":{}}"#).unwrap();
        let s = to_canonical_string(&v);
        assert_eq!(
            s,
            "{\n  \"a\": {\n    \"y\": \"x\\u200by\",\n    \"z\": [\n      1.0,\n      2\n    ]\n  },\n  \"b\": 1e+3,\n  \"c\": [],\n  \"d\": {}\n}\n"
        );
        // serde_json (arbitrary_precision) keeps the value and the mantissa spelling; exponents gain an explicit sign.
        // Round trip: the escaped text parses back to the same value.
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn display_escapes_bidi_and_zero_width() {
        assert_eq!(escape_for_display("a\u{202E}b\u{200B}"), "a\\u{202E}b\\u{200B}");
    }
}
