//! Values the schema itself gives for a property: `const`, `default`, `examples` (and OpenAPI's
//! `example`), every `enum` value, through a local `$ref`, `allOf`, and the branches of an
//! `anyOf`/`oneOf` (the MCP spec's titled enum is a `oneOf` of `{const, title}`).

use serde_json::{Map, Value};

/// Most values taken from one schema.
const MAX_VALUES: usize = 16;

/// The schema's own values for `schema` (a property's subschema), in that order; `root` resolves
/// local `$ref`s. Not yet checked against the schema: the caller keeps those that validate.
pub fn values(schema: &Value, root: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    collect(schema, root, 0, &mut out);
    out.truncate(MAX_VALUES);
    out
}

fn collect(schema: &Value, root: &Value, depth: usize, out: &mut Vec<Value>) {
    if depth > 8 || out.len() >= MAX_VALUES {
        return;
    }
    let Some(s) = schema.as_object() else { return };
    let push = |v: &Value, out: &mut Vec<Value>| {
        if !out.iter().any(|o| super::super::validate::json_eq(o, v)) {
            out.push(v.clone());
        }
    };
    if let Some(c) = s.get("const") {
        push(c, out);
        return;
    }
    if let Some(d) = s.get("default") {
        push(d, out);
    }
    for e in s.get("examples").and_then(Value::as_array).into_iter().flatten() {
        push(e, out);
    }
    if let Some(e) = s.get("example") {
        push(e, out);
    }
    for e in s.get("enum").and_then(Value::as_array).into_iter().flatten() {
        push(e, out);
    }
    if let Some(target) = s.get("$ref").and_then(Value::as_str).and_then(|r| resolve(root, r)) {
        collect(target, root, depth + 1, out);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for b in s.get(key).and_then(Value::as_array).into_iter().flatten() {
            collect(b, root, depth + 1, out);
        }
    }
}

fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let pointer = r.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// A property's subschema made checkable on its own: the root's `$defs` / `definitions` beside
/// it, so local references resolve.
pub fn standalone(schema: &Value, root: &Value) -> Value {
    let Value::Object(m) = schema else { return schema.clone() };
    let mut doc: Map<String, Value> = m.clone();
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = root.get(key) {
            let entry = doc.entry(key.to_string()).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(e) = entry {
                for (k, v) in defs {
                    e.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    Value::Object(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn const_alone_then_default_examples_and_enum_in_order() {
        assert_eq!(values(&json!({"const": "x", "default": "y"}), &json!({})), [json!("x")]);
        let s = json!({"default": "b", "examples": ["c"], "example": "d", "enum": ["a", "b", "c", "d", "e"]});
        assert_eq!(values(&s, &json!({})), [json!("b"), json!("c"), json!("d"), json!("a"), json!("e")]);
    }

    #[test]
    fn through_refs_and_titled_enums() {
        let root = json!({"$defs": {"Unit": {"enum": ["c", "f"]}}});
        assert_eq!(values(&json!({"$ref": "#/$defs/Unit"}), &root), [json!("c"), json!("f")]);
        let titled = json!({"oneOf": [{"const": "lo", "title": "Low"}, {"const": "hi", "title": "High"}]});
        assert_eq!(values(&titled, &json!({})), [json!("lo"), json!("hi")]);
        let nullable = json!({"anyOf": [{"type": "string", "examples": ["main"]}, {"type": "null"}], "default": null});
        assert_eq!(values(&nullable, &json!({})), [Value::Null, json!("main")]);
    }

    #[test]
    fn nothing_from_a_bare_schema() {
        assert!(values(&json!({"type": "string"}), &json!({})).is_empty());
        assert!(values(&json!(true), &json!({})).is_empty());
    }
}
