//! The pinned shape of a tool's result: which kinds of content blocks, the JSON type skeleton of
//! `structuredContent`, how text and structure relate, and `isError`. Never a value.

use serde_json::{json, Map, Value};

use super::validate::json_eq;

/// How a result's text blocks relate to its `structuredContent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Neither text blocks nor structured content.
    NoText,
    /// Text blocks, no structured content.
    TextOnly,
    /// Structured content, no text blocks.
    StructureOnly,
    /// A text block parses as JSON equal to `structuredContent`.
    EquivalentJson,
    /// A text block is a JSON object or array that differs from `structuredContent` (and none
    /// is equal).
    ConflictingJson,
    /// Text that is not that JSON, beside structured content (a summary, a scalar).
    TextAndStructure,
}

impl Relation {
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::NoText => "no-text",
            Relation::TextOnly => "text-only",
            Relation::StructureOnly => "structure-only",
            Relation::EquivalentJson => "equivalent-json",
            Relation::ConflictingJson => "conflicting-json",
            Relation::TextAndStructure => "text-and-structure",
        }
    }
}

/// The text of every `text` block, in order.
pub fn texts(result: &Value) -> Vec<&str> {
    blocks(result)
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect()
}

fn blocks(result: &Value) -> &[Value] {
    result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// `structuredContent`, when present (an explicit `null` counts as absent).
pub fn structured(result: &Value) -> Option<&Value> {
    result.get("structuredContent").filter(|v| !v.is_null())
}

pub fn relation(result: &Value) -> Relation {
    let texts = texts(result);
    let Some(sc) = structured(result) else {
        return if texts.is_empty() { Relation::NoText } else { Relation::TextOnly };
    };
    if texts.is_empty() {
        return Relation::StructureOnly;
    }
    let mut conflict = false;
    for t in &texts {
        let Ok(parsed) = serde_json::from_str::<Value>(t.trim()) else {
            continue;
        };
        if json_eq(&parsed, sc) {
            return Relation::EquivalentJson;
        }
        // A structure that carries the text itself as a string (server-filesystem's
        // `{"content": "<the text>"}`) wraps it; it does not contradict it.
        if (parsed.is_object() || parsed.is_array()) && !contains_text(sc, t) {
            conflict = true;
        }
    }
    if conflict {
        Relation::ConflictingJson
    } else {
        Relation::TextAndStructure
    }
}

/// Whether `text` (or its trimmed form) is a string somewhere inside `v`.
fn contains_text(v: &Value, text: &str) -> bool {
    match v {
        Value::String(s) => s == text || s.trim() == text.trim(),
        Value::Array(a) => a.iter().any(|x| contains_text(x, text)),
        Value::Object(m) => m.values().any(|x| contains_text(x, text)),
        _ => false,
    }
}

/// The JSON type skeleton of a value: objects keep their keys, arrays their first element's
/// skeleton, scalars become their type name.
pub fn skeleton(v: &Value) -> Value {
    match v {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("boolean"),
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() {
                json!("integer")
            } else {
                json!("number")
            }
        }
        Value::String(_) => json!("string"),
        Value::Array(a) => Value::Array(a.first().map(skeleton).into_iter().collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), skeleton(v))).collect()),
    }
}

/// The kinds of content blocks, distinct, in order of first appearance (`text`, `image`,
/// `audio`, `resource`, `resource_link`; an unknown kind by its `type` string).
pub fn content_kinds(result: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in blocks(result) {
        let kind = b.get("type").and_then(Value::as_str).unwrap_or("(no type)").to_string();
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    out
}

/// The shape recorded for a result.
pub fn shape(result: &Value) -> Value {
    let mut m = Map::new();
    m.insert("content".into(), Value::Array(content_kinds(result).into_iter().map(Value::String).collect()));
    if let Some(sc) = structured(result) {
        m.insert("structuredContent".into(), skeleton(sc));
    }
    m.insert("textStructure".into(), json!(relation(result).as_str()));
    m.insert("isError".into(), json!(is_error(result)));
    Value::Object(m)
}

pub fn is_error(result: &Value) -> bool {
    result.get("isError") == Some(&Value::Bool(true))
}

/// The top-level JSON kind of a skeleton (`integer` and `number` are one kind).
fn kind(skel: &Value) -> &'static str {
    match skel {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(s) => match s.as_str() {
            "integer" | "number" => "number",
            "string" => "string",
            "boolean" => "boolean",
            "null" => "null",
            _ => "unknown",
        },
        _ => "unknown",
    }
}

/// What changed between a pinned shape and a live one, one line each (empty: no change that
/// `result-shape-changed` covers). An error result on either side is not compared.
pub fn compare(pinned: &Value, live: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if !pinned.is_object()
        || pinned.get("isError") == Some(&Value::Bool(true))
        || live.get("isError") == Some(&Value::Bool(true))
    {
        return out;
    }
    match (pinned.get("structuredContent"), live.get("structuredContent")) {
        (Some(p), None) => out.push(format!("structuredContent disappeared (pinned: {})", kind(p))),
        (Some(p), Some(l)) if kind(p) != kind(l) => {
            out.push(format!("structuredContent changed from {} to {}", kind(p), kind(l)))
        }
        _ => {}
    }
    let list = |v: &Value| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for k in v.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
            let k = k.as_str().unwrap_or("?").to_string();
            if !out.contains(&k) {
                out.push(k);
            }
        }
        out
    };
    let (pk, lk) = (list(pinned), list(live));
    if pinned.get("content").is_some() && pk != lk {
        out.push(format!("content block kinds changed from [{}] to [{}]", pk.join(", "), lk.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations() {
        assert_eq!(relation(&json!({"content": []})), Relation::NoText);
        assert_eq!(
            relation(&json!({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]})),
            Relation::NoText
        );
        assert_eq!(relation(&json!({"content": [{"type": "text", "text": "hi"}]})), Relation::TextOnly);
        assert_eq!(relation(&json!({"content": [], "structuredContent": {"a": 1}})), Relation::StructureOnly);
        assert_eq!(
            relation(&json!({"content": [{"type": "text", "text": "{\"a\": 1.0}"}], "structuredContent": {"a": 1}})),
            Relation::EquivalentJson
        );
        assert_eq!(
            relation(&json!({"content": [{"type": "text", "text": "{\"a\": 2}"}], "structuredContent": {"a": 1}})),
            Relation::ConflictingJson
        );
        assert_eq!(
            relation(
                &json!({"content": [{"type": "text", "text": "summary"}, {"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}})
            ),
            Relation::EquivalentJson
        );
        assert_eq!(
            relation(&json!({"content": [{"type": "text", "text": "Done: 3 files"}], "structuredContent": {"a": 1}})),
            Relation::TextAndStructure
        );
        assert_eq!(
            relation(&json!({"content": [{"type": "text", "text": "42"}], "structuredContent": {"a": 1}})),
            Relation::TextAndStructure
        );
        // server-filesystem's directory_tree: the JSON text wrapped as a string.
        assert_eq!(
            relation(
                &json!({"content": [{"type": "text", "text": "[{\"name\": \"a\"}]"}], "structuredContent": {"content": "[{\"name\": \"a\"}]"}})
            ),
            Relation::TextAndStructure
        );
    }

    #[test]
    fn shape_has_no_values() {
        let r = json!({
            "content": [{"type": "text", "text": "secret"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "text", "text": "x"}, {"type": "x-custom"}],
            "structuredContent": {"name": "secret", "n": 3, "f": 1.5, "tags": ["a", "b"], "none": [], "ok": true, "z": null}
        });
        let s = shape(&r);
        assert_eq!(
            s,
            json!({
                "content": ["text", "image", "x-custom"],
                "structuredContent": {"name": "string", "n": "integer", "f": "number", "tags": ["string"], "none": [], "ok": "boolean", "z": "null"},
                "textStructure": "text-and-structure",
                "isError": false
            })
        );
        assert!(!s.to_string().contains("secret"));
    }

    #[test]
    fn compare_shapes() {
        let p = json!({"content": ["text"], "structuredContent": {"a": "string"}, "textStructure": "equivalent-json", "isError": false});
        assert!(compare(&p, &p).is_empty());
        // Values and keys under the top level may vary without a failure.
        let l = json!({"content": ["text"], "structuredContent": {"b": "integer"}, "textStructure": "equivalent-json", "isError": false});
        assert!(compare(&p, &l).is_empty());
        let l = json!({"content": ["text"], "textStructure": "text-only", "isError": false});
        assert_eq!(compare(&p, &l), vec!["structuredContent disappeared (pinned: object)"]);
        let l = json!({"content": ["text"], "structuredContent": ["string"], "isError": false});
        assert_eq!(compare(&p, &l), vec!["structuredContent changed from object to array"]);
        let l = json!({"content": ["text", "image"], "structuredContent": {}, "isError": false});
        assert_eq!(compare(&p, &l), vec!["content block kinds changed from [text] to [text, image]"]);
        // integer and number are one kind
        let p2 = json!({"content": [], "structuredContent": "integer", "isError": false});
        let l2 = json!({"content": [], "structuredContent": "number", "isError": false});
        assert!(compare(&p2, &l2).is_empty());
        // structure appearing is not a failure
        let p3 = json!({"content": ["text"], "isError": false});
        let l3 = json!({"content": ["text"], "structuredContent": {}, "isError": false});
        assert!(compare(&p3, &l3).is_empty());
        // error shapes are not compared
        let pe = json!({"content": ["text"], "isError": true});
        assert!(compare(&pe, &l).is_empty());
    }
}
