//! Whether two schemas can accept the same value: the question behind a `oneOf` alternative that
//! appears or disappears. `oneOf` rejects a value that matches two alternatives, so a new
//! alternative that overlaps an old one makes some values fail that passed before (and a removed
//! overlapping one makes some pass that failed): the direction of the change cannot be proven.
//!
//! Only *proof* of disjointness counts; anything this cannot decide may overlap. Proofs used, as
//! real unions are written: disjoint `type` sets (`integer` inside `number`), disjoint `enum` /
//! `const` value sets (or values none of which has the other's type), and a discriminator: a
//! property required by at least one side whose two schemas are themselves disjoint (the tagged
//! union `{"kind": {"const": "a"}}` / `{"kind": {"const": "b"}}`).

use serde_json::{Map, Value};

/// Unions with more alternatives than this are not analysed (each added or removed alternative
/// is compared with every other one); their changes stay `branch-added` / `branch-removed`.
pub const MAX_ALTERNATIVES: usize = 256;

/// How deep discriminator properties are followed.
const MAX_DEPTH: usize = 8;

/// The first alternative other than `all[i]` that may overlap it; `None` also when the union has
/// more than [`MAX_ALTERNATIVES`] alternatives (not analysed).
pub fn first_overlap(all: &[&Value], i: usize) -> Option<usize> {
    if all.len() > MAX_ALTERNATIVES {
        return None;
    }
    (0..all.len()).find(|&k| k != i && may_overlap(all[i], all[k]))
}

/// Whether no two alternatives can overlap (provably); `false` for a union of more than
/// [`MAX_ALTERNATIVES`] alternatives (not analysed).
pub fn pairwise_disjoint(all: &[&Value]) -> bool {
    all.len() <= MAX_ALTERNATIVES && (0..all.len()).all(|i| (i + 1..all.len()).all(|j| !may_overlap(all[i], all[j])))
}

/// True unless the two schemas provably accept no common value.
pub fn may_overlap(a: &Value, b: &Value) -> bool {
    !disjoint(a, b, 0)
}

fn disjoint(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let (am, bm) = match (a, b) {
        (Value::Bool(false), _) | (_, Value::Bool(false)) => return true,
        (Value::Object(x), Value::Object(y)) => (x, y),
        _ => return false,
    };
    if am.contains_key("$ref") || bm.contains_key("$ref") {
        return false; // not followed: the target decides
    }
    let (ta, tb) = (types(am), types(bm));
    if let (Some(ta), Some(tb)) = (&ta, &tb) {
        if !ta.iter().any(|x| tb.iter().any(|y| type_meets(x, y))) {
            return true;
        }
    }
    let (va, vb) = (values(am), values(bm));
    match (&va, &vb) {
        (Some(va), Some(vb)) if !va.iter().any(|x| vb.contains(x)) => return true,
        (Some(vs), None) if tb.as_ref().is_some_and(|t| vs.iter().all(|v| !has_type(v, t))) => return true,
        (None, Some(vs)) if ta.as_ref().is_some_and(|t| vs.iter().all(|v| !has_type(v, t))) => return true,
        _ => {}
    }
    discriminated(am, bm, depth)
}

/// A property present in both `properties`, required on at least one side, whose two schemas are
/// disjoint: a value matching one side cannot match the other.
fn discriminated(am: &Map<String, Value>, bm: &Map<String, Value>, depth: usize) -> bool {
    let (Some(Value::Object(pa)), Some(Value::Object(pb))) = (am.get("properties"), bm.get("properties")) else {
        return false;
    };
    let required = |m: &Map<String, Value>, k: &str| {
        m.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|n| n.as_str() == Some(k)))
    };
    pa.iter()
        .any(|(k, sa)| pb.get(k).is_some_and(|sb| (required(am, k) || required(bm, k)) && disjoint(sa, sb, depth + 1)))
}

fn types(m: &Map<String, Value>) -> Option<Vec<&str>> {
    match m.get("type")? {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(v) => Some(v.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

fn values(m: &Map<String, Value>) -> Option<Vec<&Value>> {
    if let Some(c) = m.get("const") {
        return Some(vec![c]);
    }
    m.get("enum").and_then(Value::as_array).map(|v| v.iter().collect())
}

fn type_meets(x: &str, y: &str) -> bool {
    x == y || matches!((x, y), ("integer", "number") | ("number", "integer"))
}

fn has_type(v: &Value, types: &[&str]) -> bool {
    types.iter().any(|t| match *t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::may_overlap;
    use serde_json::json;

    #[test]
    fn types_decide() {
        assert!(!may_overlap(&json!({"type": "string"}), &json!({"type": ["integer", "null"]})));
        assert!(may_overlap(&json!({"type": "integer"}), &json!({"type": "number"})));
        assert!(may_overlap(&json!({"type": "string"}), &json!({"minLength": 3})));
        assert!(!may_overlap(&json!(false), &json!({})));
        assert!(may_overlap(&json!(true), &json!({"type": "object"})));
    }

    #[test]
    fn values_decide() {
        assert!(!may_overlap(&json!({"enum": ["a", "b"]}), &json!({"const": "c"})));
        assert!(may_overlap(&json!({"enum": ["a", "b"]}), &json!({"enum": ["b"]})));
        assert!(!may_overlap(&json!({"enum": ["a", 1]}), &json!({"type": "boolean"})));
        assert!(may_overlap(&json!({"enum": [2]}), &json!({"type": "integer"})));
        assert!(!may_overlap(&json!({"enum": [2.5]}), &json!({"type": "integer"})));
    }

    #[test]
    fn discriminator_decides_only_when_required() {
        let a = json!({"type": "object", "properties": {"kind": {"const": "a"}, "x": {}}, "required": ["kind"]});
        let b = json!({"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]});
        assert!(!may_overlap(&a, &b));
        let loose = json!({"type": "object", "properties": {"kind": {"const": "b"}}});
        assert!(!may_overlap(&a, &loose), "required on one side is enough");
        let loose_a = json!({"type": "object", "properties": {"kind": {"const": "a"}}});
        assert!(may_overlap(&loose_a, &loose), "both optional: {{}} matches both");
        let by_ref = json!({"type": "object", "properties": {"kind": {"$ref": "#/$defs/K"}}, "required": ["kind"]});
        assert!(may_overlap(&a, &by_ref));
    }
}
