//! The type skeleton of `structuredContent` (RULES.md, the result contract, 2 and 8): what `lock`
//! pins of a structure without an `outputSchema`, and how `check` compares two skeletons. Never
//! a value: objects keep their keys, scalars become their type name, and an array keeps the set
//! of its elements' types.
//!
//! A skeleton node is one of:
//! - a type name: `"string"`, `"integer"`, `"number"`, `"boolean"`, or `"null"` (no type);
//! - an object of nodes (its keys);
//! - an array: the set of its elements' types, one entry per type (objects merged key by key,
//!   arrays merged element set by element set), sorted by type; `[]` when empty or all `null`;
//! - `["|", a, b, ...]`: a key whose values in merged objects have several types (the array
//!   elements `{"id": 1}` and `{"id": "x"}` give `{"id": ["|", "integer", "string"]}`). `"|"` is
//!   never a type name, so this cannot be read as an array.
//!
//! A lock written before element sets (mcp-pin up to the decided cases) holds `"mixed"` where
//! elements disagreed, and one merged entry per array: `"mixed"` has no type to compare, and a
//! one-entry array is the set of one type, so such a pin reads as before.

use serde_json::{json, Map, Value};

/// The mark of a type set at a key.
const UNION: &str = "|";

/// Whether a difference is a change a consumer reads (`result-shape-changed`) or something pinned
/// that is simply not there this time (`result-shape-reduced`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Diff {
    Changed,
    Reduced,
}

/// The skeleton of a value (see the module documentation).
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
        Value::Array(a) => {
            let mut set = Vec::new();
            for x in a {
                add(&mut set, skeleton(x));
            }
            sort(&mut set);
            Value::Array(set)
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), skeleton(v))).collect()),
    }
}

/// Only the top-level type (for a tool with an `outputSchema`: nothing deeper is compared).
pub fn top_skeleton(v: &Value) -> Value {
    match v {
        Value::Array(_) => json!([]),
        Value::Object(_) => json!({}),
        other => skeleton(other),
    }
}

/// The type of a single-type node as a consumer reads it (`integer` and `number` are one type);
/// `None` for a node with no type (`null`, a pre-set `mixed`) and for a type set.
pub fn kind(node: &Value) -> Option<&'static str> {
    match node {
        Value::Object(_) => Some("object"),
        Value::Array(a) if a.first().and_then(Value::as_str) == Some(UNION) => None,
        Value::Array(_) => Some("array"),
        Value::String(s) => match s.as_str() {
            "integer" | "number" => Some("number"),
            "string" => Some("string"),
            "boolean" => Some("boolean"),
            _ => None,
        },
        _ => None,
    }
}

/// The type name shown in a message (`integer` stays `integer`; a set is `integer | string`).
pub fn type_name(node: &Value) -> String {
    match node {
        Value::Object(_) => "object".into(),
        Value::Array(a) if a.first().and_then(Value::as_str) == Some(UNION) => {
            a[1..].iter().map(type_name).collect::<Vec<_>>().join(" | ")
        }
        Value::Array(_) => "array".into(),
        Value::String(s) => s.clone(),
        _ => "unknown".into(),
    }
}

/// The types a node stands for: itself, the members of a type set, or none (`null`, `mixed`).
fn members(node: &Value) -> Vec<&Value> {
    match node {
        Value::Array(a) if a.first().and_then(Value::as_str) == Some(UNION) => {
            a[1..].iter().filter(|m| kind(m).is_some()).collect()
        }
        n if kind(n).is_some() => vec![n],
        _ => Vec::new(),
    }
}

/// The element types of an array node; `None` when they are unknown (a pre-set `mixed`).
fn elements(arr: &[Value]) -> Option<Vec<&Value>> {
    let mut out = Vec::new();
    for e in arr {
        if e.as_str() == Some("mixed") {
            return None;
        }
        if kind(e).is_some() {
            out.push(e);
        }
    }
    Some(out)
}

/// Add a single-type node to a set, merged with the member of its type.
fn add(set: &mut Vec<Value>, node: Value) {
    let Some(k) = kind(&node) else { return };
    match set.iter_mut().find(|m| kind(m) == Some(k)) {
        Some(slot) => {
            let old = std::mem::take(slot);
            *slot = merge_same(old, node);
        }
        None => set.push(node),
    }
}

fn sort(set: &mut [Value]) {
    set.sort_by(|a, b| kind(a).cmp(&kind(b)));
}

/// Two nodes of one type as one: objects by key, arrays by element set, `integer` and `number`
/// as `number`.
fn merge_same(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(w) => merge_any(w, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            Value::Object(x)
        }
        (Value::Array(x), Value::Array(y)) => {
            let mut set = Vec::new();
            for e in x.into_iter().chain(y) {
                add(&mut set, e);
            }
            sort(&mut set);
            Value::Array(set)
        }
        (Value::String(s), Value::String(t)) if s == t => Value::String(s),
        _ => json!("number"),
    }
}

/// Two nodes at one key of merged objects: the set of their types (`null` gives way).
fn merge_any(a: Value, b: Value) -> Value {
    let mut set = Vec::new();
    for n in [a, b] {
        match n {
            Value::Array(mut v) if v.first().and_then(Value::as_str) == Some(UNION) => {
                for m in v.drain(1..) {
                    add(&mut set, m);
                }
            }
            other => add(&mut set, other),
        }
    }
    sort(&mut set);
    match set.len() {
        0 => json!("null"),
        1 => set.pop().unwrap_or(Value::Null),
        _ => {
            let mut u = vec![json!(UNION)];
            u.extend(set);
            Value::Array(u)
        }
    }
}

/// `structuredContent.a.b[]`: where a key sits, for a message.
fn child(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

fn names(set: &[&Value]) -> String {
    set.iter().map(|m| type_name(m)).collect::<Vec<_>>().join(", ")
}

/// Compare two skeletons of the same top-level type at every depth (RULES.md, the result
/// contract, 2 and 8): a key present both times whose type changed is a change; a pinned key
/// absent now (also one that was `null`) is reduced; a new key is no change; `null`, `[]` and a
/// pre-set `mixed` have no type and match anything. Where a node is a set of types (array
/// elements, a key of merged objects), a type never seen at lock is a change and one no longer
/// seen is reduced; one type replaced by another is one change.
pub fn compare(tool: &str, path: &str, pinned: &Value, live: &Value, out: &mut Vec<(Diff, String)>) {
    // `[]` at a value: its elements are unknown, so it has no type to compare.
    let empty = |v: &Value| v.as_array().is_some_and(Vec::is_empty);
    if empty(pinned) || empty(live) {
        return;
    }
    compare_sets(tool, path, &members(pinned), &members(live), out);
}

fn compare_sets(tool: &str, path: &str, pinned: &[&Value], live: &[&Value], out: &mut Vec<(Diff, String)>) {
    if pinned.is_empty() || live.is_empty() {
        return;
    }
    if let ([p], [l]) = (pinned, live) {
        if kind(p) != kind(l) {
            out.push((Diff::Changed, format!("{path} of tool {tool}: {} is now {}", type_name(p), type_name(l))));
            return;
        }
    }
    let has = |set: &[&Value], k: Option<&str>| set.iter().any(|m| kind(m) == k);
    for l in live.iter().filter(|l| !has(pinned, kind(l))) {
        out.push((
            Diff::Changed,
            format!("{path} of tool {tool}: {} never seen at lock (pinned: {})", type_name(l), names(pinned)),
        ));
    }
    for p in pinned.iter().filter(|p| !has(live, kind(p))) {
        out.push((
            Diff::Reduced,
            format!("{path} of tool {tool}: {} does not occur this time (now: {})", type_name(p), names(live)),
        ));
    }
    for p in pinned {
        if let Some(l) = live.iter().find(|l| kind(l) == kind(p)) {
            inside(tool, path, p, l, out);
        }
    }
}

/// Two nodes of one type: an object's keys, an array's element set.
fn inside(tool: &str, path: &str, pinned: &Value, live: &Value, out: &mut Vec<(Diff, String)>) {
    match (pinned, live) {
        (Value::Object(p), Value::Object(l)) => object(tool, path, p, l, out),
        (Value::Array(p), Value::Array(l)) => {
            if let (Some(pe), Some(le)) = (elements(p), elements(l)) {
                compare_sets(tool, &format!("{path}[]"), &pe, &le, out);
            }
        }
        _ => {}
    }
}

fn object(tool: &str, path: &str, p: &Map<String, Value>, l: &Map<String, Value>, out: &mut Vec<(Diff, String)>) {
    for (k, pv) in p {
        let at = child(path, k);
        match l.get(k) {
            Some(lv) => compare(tool, &at, pv, lv, out),
            None => out.push((
                Diff::Reduced,
                format!("{at} of tool {tool}: pinned key is absent this time (pinned: {})", type_name(pv)),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(lock: Value, now: Value) -> Vec<(Diff, String)> {
        let mut out = Vec::new();
        compare("t", "structuredContent", &skeleton(&lock), &skeleton(&now), &mut out);
        out
    }

    #[test]
    fn arrays_keep_the_set_of_their_element_types() {
        assert_eq!(skeleton(&json!([{"a": 1}, {"b": "x"}, {"a": 2.5}])), json!([{"a": "number", "b": "string"}]));
        assert_eq!(skeleton(&json!(["x", 1, 2.5, "y"])), json!(["number", "string"]));
        assert_eq!(skeleton(&json!([null, "x"])), json!(["string"]));
        assert_eq!(skeleton(&json!([null])), json!([]));
        assert_eq!(skeleton(&json!([[], [1]])), json!([["integer"]]));
        assert_eq!(
            skeleton(&json!([{"id": 1}, {"id": "x"}, {"id": null}])),
            json!([{"id": ["|", "integer", "string"]}])
        );
        // The set is sorted: the order of elements (values) never shows.
        assert_eq!(skeleton(&json!([1, "x", true, {}, []])), skeleton(&json!([[], {}, true, "y", 3])));
        // `integer` and `number` are one type; both seen is `number`.
        assert_eq!(skeleton(&json!([{"id": 1}, {"id": "x"}, {"id": 2.5}])), json!([{"id": ["|", "number", "string"]}]));
    }

    #[test]
    fn a_type_never_seen_is_changed_one_no_longer_seen_reduced() {
        let d = diff(json!({"v": [1, 2]}), json!({"v": [1, "x"]}));
        assert_eq!(
            d,
            vec![(
                Diff::Changed,
                "structuredContent.v[] of tool t: string never seen at lock (pinned: integer)".into()
            )]
        );
        let d = diff(json!({"v": [1, "x"]}), json!({"v": [3]}));
        assert_eq!(
            d,
            vec![(
                Diff::Reduced,
                "structuredContent.v[] of tool t: string does not occur this time (now: integer)".into()
            )]
        );
        // One type replaced by another is one change, not a change and a reduction.
        let d = diff(json!({"v": [1]}), json!({"v": ["x"]}));
        assert_eq!(d, vec![(Diff::Changed, "structuredContent.v[] of tool t: integer is now string".into())]);
        // Objects merged key by key: a key's type set compares the same way.
        let d = diff(json!({"v": [{"id": 1}, {"id": 2}]}), json!({"v": [{"id": 1}, {"id": "x"}]}));
        assert_eq!(
            d,
            vec![(
                Diff::Changed,
                "structuredContent.v[].id of tool t: string never seen at lock (pinned: integer)".into()
            )]
        );
        let d = diff(json!({"v": [{"id": 1}, {"id": "x"}]}), json!({"v": [{"id": 1}]}));
        assert_eq!(
            d,
            vec![(
                Diff::Reduced,
                "structuredContent.v[].id of tool t: string does not occur this time (now: integer)".into()
            )]
        );
        // Objects with different keys merge: a key some element carries is pinned.
        let d = diff(json!({"v": [{"a": 1}, {"b": "x"}]}), json!({"v": [{"a": 2}]}));
        assert_eq!(
            d,
            vec![(
                Diff::Reduced,
                "structuredContent.v[].b of tool t: pinned key is absent this time (pinned: string)".into()
            )]
        );
        assert!(diff(json!({"v": [{"a": 1}]}), json!({"v": [{"b": "x"}, {"a": 2}]})).is_empty());
    }

    #[test]
    fn controls_no_change() {
        // Same types in another order, more or fewer of them, integers and floats.
        assert!(diff(json!({"v": [1, "x"]}), json!({"v": ["y", 2.5, "z", 7]})).is_empty());
        // Nulls among elements, `[]` at a value or as the whole array: no type to compare.
        assert!(diff(json!({"v": [1, null]}), json!({"v": [2]})).is_empty());
        assert!(diff(json!({"v": [1]}), json!({"v": [null, 2]})).is_empty());
        assert!(diff(json!({"v": []}), json!({"v": ["x"]})).is_empty());
        assert!(diff(json!({"v": ["x"]}), json!({"v": []})).is_empty());
        assert!(diff(json!({"v": []}), json!({"v": "x"})).is_empty());
        assert!(diff(json!({"v": [[], [1]]}), json!({"v": [[2, 3]]})).is_empty());
        // A key that is null now matches anything; a new key is no change.
        assert!(diff(json!({"a": 1}), json!({"a": null, "b": 2})).is_empty());
    }

    #[test]
    fn null_then_absent_is_reduced() {
        let d = diff(json!({"a": null, "b": 1}), json!({"b": 2}));
        assert_eq!(
            d,
            vec![(
                Diff::Reduced,
                "structuredContent.a of tool t: pinned key is absent this time (pinned: null)".into()
            )]
        );
        // Absent at lock, null now: a new key, no change.
        assert!(diff(json!({"b": 1}), json!({"a": null, "b": 2})).is_empty());
    }

    #[test]
    fn pins_from_before_element_sets_read_as_before() {
        let mut out = Vec::new();
        // `mixed` had no type; a one-entry array is the set of one type.
        compare(
            "t",
            "structuredContent",
            &json!({"v": ["mixed"], "w": [{"id": "mixed"}]}),
            &skeleton(&json!({"v": [true], "w": [{"id": [1]}]})),
            &mut out,
        );
        assert!(out.is_empty(), "{out:?}");
        compare("t", "structuredContent", &json!({"v": ["integer"]}), &skeleton(&json!({"v": [1, 2.5]})), &mut out);
        assert!(out.is_empty(), "{out:?}");
    }
}
