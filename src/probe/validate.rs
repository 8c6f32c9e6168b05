//! JSON Schema validation for the probes: the draft is read from `$schema` (2020-12 when absent
//! or unknown, as MCP says), remote references are never fetched (the `jsonschema` crate is built
//! without `resolve-http`/`resolve-file`), and error messages never carry instance values.

use jsonschema::{Draft, ValidationError, Validator};
use serde_json::Value;

/// The draft a schema declares with `$schema`; 2020-12 when absent or not recognised.
pub fn draft_of(schema: &Value) -> Draft {
    match schema.get("$schema").and_then(Value::as_str) {
        Some(s) if s.contains("draft-04") => Draft::Draft4,
        Some(s) if s.contains("draft-06") => Draft::Draft6,
        Some(s) if s.contains("draft-07") => Draft::Draft7,
        Some(s) if s.contains("2019-09") => Draft::Draft201909,
        _ => Draft::Draft202012,
    }
}

/// How format keywords are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Formats {
    /// Formats are assertions (used for arguments mcp-pin makes up: they must be right).
    Assert,
    /// Formats are annotations in every draft (used for `structuredContent`: the `jsonschema`
    /// crate would assert them under draft-04/06/07 only, and a `$schema` change alone must not
    /// flip a verdict).
    Annotate,
}

/// Compile `schema` under `draft`. `$schema` is taken out first so an unknown meta-schema URI
/// cannot make the compiler try to fetch it.
pub fn compile_as(schema: &Value, draft: Draft, formats: Formats) -> Result<Validator, String> {
    let mut s = schema.clone();
    if let Value::Object(m) = &mut s {
        m.remove("$schema");
    }
    let mut opts = jsonschema::options().with_draft(draft);
    opts = opts.should_validate_formats(formats == Formats::Assert);
    opts.build(&s).map_err(|e| crate::secrets::excerpt(&e.to_string(), 200))
}

/// Compile `schema` under the draft its `$schema` names.
pub fn compile(schema: &Value, formats: Formats) -> Result<Validator, String> {
    compile_as(schema, draft_of(schema), formats)
}

/// One validation error, described by where and which keyword, never by value.
pub fn describe(e: &ValidationError<'_>) -> String {
    let at = e.instance_path().as_str();
    let at = if at.is_empty() { "(root)".to_string() } else { at.to_string() };
    let keyword = e.kind().keyword();
    let schema_path = e.schema_path().as_str();
    match e.kind() {
        jsonschema::error::ValidationErrorKind::Required { property } => {
            let name = property.as_str().map(str::to_string).unwrap_or_else(|| property.to_string());
            format!("at {at}: required property `{}` is missing", crate::secrets::excerpt(&name, 60))
        }
        _ => format!("at {at}: fails `{keyword}` (schema {schema_path})"),
    }
}

/// First error of `instance` against `validator`, described without values.
pub fn first_error(validator: &Validator, instance: &Value) -> Option<String> {
    validator.validate(instance).err().map(|e| describe(&e))
}

/// JSON equality where numbers compare by value (`1` equals `1.0`), whatever their spelling.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(p), Some(q)) = (x.as_i64(), y.as_i64()) {
                p == q
            } else if let (Some(p), Some(q)) = (x.as_u64(), y.as_u64()) {
                p == q
            } else {
                match (x.as_f64(), y.as_f64()) {
                    (Some(p), Some(q)) => p == q,
                    _ => x.to_string() == y.to_string(),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn draft_detection() {
        assert_eq!(draft_of(&json!({"$schema": "http://json-schema.org/draft-07/schema#"})), Draft::Draft7);
        assert_eq!(draft_of(&json!({})), Draft::Draft202012);
        assert_eq!(draft_of(&json!({"$schema": "https://example.com/custom"})), Draft::Draft202012);
    }

    #[test]
    fn unknown_meta_schema_still_compiles() {
        let v = compile(&json!({"$schema": "https://example.com/meta", "type": "string"}), Formats::Annotate).unwrap();
        assert!(v.is_valid(&json!("x")));
        assert!(!v.is_valid(&json!(1)));
    }

    /// A reference to a server that would answer with a valid schema, and counts who asks: the
    /// schema does not compile and nobody asked. Checked by hand: with a retriever that fetches
    /// over HTTP given to `compile_as` (`with_retriever`), the server was asked once and the
    /// schema compiled, so this test failed.
    #[test]
    fn remote_refs_are_not_fetched() {
        use std::io::{Read, Write};
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let asked = Arc::new(AtomicUsize::new(0));
        let count = asked.clone();
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let body = r#"{"type": "string"}"#;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        let url = format!("http://127.0.0.1:{port}/schema.json");
        let r = compile(&json!({"$ref": url}), Formats::Annotate);
        assert_eq!(asked.load(Ordering::SeqCst), 0, "the remote reference was fetched");
        assert!(r.is_err(), "a schema whose reference is remote compiled");
    }

    #[test]
    fn errors_carry_no_values() {
        let v = compile(&json!({"type": "object", "properties": {"a": {"type": "integer"}}}), Formats::Assert).unwrap();
        let msg = first_error(&v, &json!({"a": "SECRET-VALUE"})).unwrap();
        assert!(!msg.contains("SECRET"), "{msg}");
        assert!(msg.contains("/a"), "{msg}");
        let v = compile(&json!({"type": "object", "required": ["b"]}), Formats::Assert).unwrap();
        let msg = first_error(&v, &json!({"a": "SECRET"})).unwrap();
        assert!(msg.contains("`b`") && !msg.contains("SECRET"), "{msg}");
    }

    #[test]
    fn numbers_compare_by_value() {
        let a: Value = serde_json::from_str(r#"{"x": 1, "y": [2.50]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"y": [2.5], "x": 1.0}"#).unwrap();
        assert!(json_eq(&a, &b));
        assert!(!json_eq(&json!({"x": 1}), &json!({"x": 2})));
    }

    #[test]
    fn excerpts_cut_and_flatten() {
        assert_eq!(crate::secrets::excerpt("a\n\n b", 10), "a b");
        assert_eq!(crate::secrets::excerpt(&"x".repeat(300), 200).chars().count(), 201);
    }
}
