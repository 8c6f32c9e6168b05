//! Property tests for the diff engine: metamorphic variants must yield nothing, a single known
//! mutation must yield exactly its rule, and nothing panics on arbitrary JSON.

use std::collections::BTreeMap;

use mcp_pin::diff::{diff_surfaces, diff_tool, surface_from_json};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------- generators

const NAMES: &[&str] = &["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
const WORDS: &[&str] = &["red", "green", "blue", "cyan", "magenta", "amber"];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        (proptest::option::of(1u32..500), proptest::option::of(0u32..3), any::<bool>()).prop_map(|(max, min, desc)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("string"));
            if let Some(x) = max {
                m.insert("maxLength".into(), json!(x + 3));
            }
            if let Some(x) = min {
                m.insert("minLength".into(), json!(x + 1));
            }
            if desc {
                m.insert("description".into(), json!("a text value"));
            }
            Value::Object(m)
        }),
        (proptest::option::of(-50i64..50), proptest::option::of(50i64..5000)).prop_map(|(min, max)| {
            let mut m = Map::new();
            m.insert("type".into(), json!("integer"));
            if let Some(x) = min {
                m.insert("minimum".into(), json!(x));
            }
            if let Some(x) = max {
                m.insert("maximum".into(), json!(x));
            }
            Value::Object(m)
        }),
        proptest::sample::subsequence(WORDS.to_vec(), 1..5).prop_map(|vals| json!({"type": "string", "enum": vals})),
        Just(json!({"type": "boolean", "default": false})),
        Just(json!({"type": ["number", "null"], "default": 1.5})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                proptest::collection::btree_map(proptest::sample::select(NAMES.to_vec()), inner.clone(), 1..4),
                any::<u8>(),
                any::<bool>()
            )
                .prop_map(|(props, req_mask, closed)| object(props, req_mask, closed)),
            inner.clone().prop_map(|i| json!({"type": "array", "items": i})),
            (inner.clone(), inner).prop_map(|(a, b)| json!({"anyOf": [a, b]})),
        ]
    })
}

fn object(props: BTreeMap<&str, Value>, req_mask: u8, closed: bool) -> Value {
    let required: Vec<&str> =
        props.keys().enumerate().filter(|(i, _)| req_mask & (1 << i) != 0).map(|(_, k)| *k).collect();
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), Value::Object(props.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
    if !required.is_empty() {
        m.insert("required".into(), json!(required));
    }
    if closed {
        m.insert("additionalProperties".into(), json!(false));
    }
    Value::Object(m)
}

fn tool_strategy(name: &'static str) -> impl Strategy<Value = Value> {
    (
        proptest::collection::btree_map(proptest::sample::select(NAMES.to_vec()), schema(), 1..5),
        any::<u8>(),
        any::<bool>(),
        proptest::option::of(schema()),
    )
        .prop_map(move |(props, mask, ro, out)| {
            let mut t = json!({
                "name": name,
                "description": format!("The {name} tool does things."),
                "inputSchema": object(props, mask, false),
                "annotations": {"readOnlyHint": ro},
            });
            if let Some(o) = out {
                t["outputSchema"] = json!({"type": "object", "properties": {"result": o}});
            }
            t
        })
}

fn surface_strategy() -> impl Strategy<Value = Value> {
    (tool_strategy("search"), tool_strategy("fetch"), proptest::option::of(tool_strategy("write"))).prop_map(
        |(a, b, c)| {
            let mut tools = vec![a, b];
            tools.extend(c);
            json!({"tools": tools, "instructions": "Use search first.", "serverInfo": {"name": "s", "version": "1"}})
        },
    )
}

// ---------------------------------------------------------------- metamorphic transforms

/// A tiny deterministic PRNG (splitmix64), so the transforms need no rand API.
struct TestRng(u64);

impl TestRng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// Serialise with shuffled keys, shuffled `required`/`enum`/`type` arrays and tools, and varied
/// number spellings, then parse again.
fn shuffled_text(v: &Value, rng: &mut TestRng) -> Value {
    fn write(v: &Value, key: Option<&str>, rng: &mut TestRng, out: &mut String) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                rng.shuffle(&mut keys);
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push_str(if rng.coin() { ",\n  " } else { "," });
                    }
                    out.push_str(&Value::String((*k).clone()).to_string());
                    out.push_str(": ");
                    write(&m[k.as_str()], Some(k), rng, out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                let mut items: Vec<&Value> = a.iter().collect();
                if matches!(key, Some("required" | "enum" | "type" | "tools")) {
                    rng.shuffle(&mut items);
                }
                out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write(x, None, rng, out);
                }
                out.push(']');
            }
            Value::Number(n) => {
                let s = n.to_string();
                let is_int = !s.contains(['.', 'e', 'E']);
                match rng.below(3) {
                    1 if is_int => out.push_str(&format!("{s}.0")),
                    2 if is_int => out.push_str(&format!("{s}e0")),
                    _ => out.push_str(&s),
                }
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut s = String::new();
    write(v, None, rng, &mut s);
    serde_json::from_str(&s).expect("shuffled text parses")
}

/// Move every top-level property schema of each inputSchema into `$defs` behind a `$ref`, and
/// spell `["x", "null"]` types as `anyOf`.
fn inline_refs(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(Value::Array(tools)) = v.get_mut("tools") {
        for t in tools {
            let Some(schema) = t.get_mut("inputSchema").and_then(Value::as_object_mut) else {
                continue;
            };
            let Some(Value::Object(props)) = schema.get("properties").cloned() else {
                continue;
            };
            let mut defs = Map::new();
            let mut new_props = Map::new();
            for (i, (k, s)) in props.into_iter().enumerate() {
                let def = format!("D{i}");
                defs.insert(def.clone(), nullable_as_anyof(s));
                new_props.insert(k, json!({"$ref": format!("#/$defs/{def}")}));
            }
            schema.insert("properties".into(), Value::Object(new_props));
            schema.insert("$defs".into(), Value::Object(defs));
        }
    }
    v
}

fn nullable_as_anyof(v: Value) -> Value {
    match v {
        Value::Object(mut m) => {
            for val in m.values_mut() {
                *val = nullable_as_anyof(std::mem::take(val));
            }
            if let Some(Value::Array(t)) = m.get("type").cloned() {
                if t.len() == 2 && t.contains(&json!("null")) && !m.contains_key("enum") {
                    let other = t.into_iter().find(|x| x != &json!("null")).unwrap();
                    m.remove("type");
                    let default = m.remove("default");
                    let mut out = Map::new();
                    out.insert(
                        "anyOf".into(),
                        json!([Value::Object({ let mut b = m; b.insert("type".into(), other); b }), {"type": "null"}]),
                    );
                    if let Some(d) = default {
                        out.insert("default".into(), d);
                    }
                    return Value::Object(out);
                }
            }
            Value::Object(m)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(nullable_as_anyof).collect()),
        other => other,
    }
}

fn keys(v: &Value, w: &Value) -> Vec<(String, String)> {
    diff_surfaces(&surface_from_json(v), &surface_from_json(w))
        .into_iter()
        .map(|c| (c.rule.to_string(), c.pointer))
        .collect()
}

// ---------------------------------------------------------------- mutations

#[derive(Debug, Clone, Copy)]
enum Mutation {
    RequiredRemoved,
    RequiredAdded,
    PropertyAdded,
    PropertyRemoved,
    DescriptionChanged,
    EnumValueAdded,
    EnumValueRemoved,
    TypeWidened,
    ConstraintLoosened,
    ConstraintTightened,
    DefaultAdded,
}

/// Apply `m` to the top level of the first tool's inputSchema; `None` when it does not apply.
fn mutate(surface: &Value, m: Mutation) -> Option<(Value, &'static str)> {
    let mut s = surface.clone();
    let tool = s["tools"].get_mut(0)?;
    if m as u8 == Mutation::DescriptionChanged as u8 {
        tool["description"] = json!("Now it does other things.");
        return Some((s, "description-changed"));
    }
    let schema = tool.get_mut("inputSchema")?.as_object_mut()?;
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let props = schema.get_mut("properties")?.as_object_mut()?;
    let names: Vec<String> = props.keys().cloned().collect();
    let rule = match m {
        Mutation::RequiredRemoved => {
            let r = required.first()?.clone();
            let rest: Vec<&String> = required.iter().filter(|x| **x != r).collect();
            schema.insert("required".into(), json!(rest));
            "required-removed"
        }
        Mutation::RequiredAdded => {
            let n = names.iter().find(|n| !required.contains(n))?.clone();
            let mut r = required.clone();
            r.push(n);
            schema.insert("required".into(), json!(r));
            "required-added"
        }
        Mutation::PropertyAdded => {
            props.insert("zz_new".into(), json!({"type": "string"}));
            "property-added"
        }
        Mutation::PropertyRemoved => {
            let n = names.iter().find(|n| !required.contains(n))?.clone();
            props.remove(&n);
            "property-removed"
        }
        Mutation::EnumValueAdded | Mutation::EnumValueRemoved => {
            let (_, p) = props
                .iter_mut()
                .find(|(_, p)| p.get("enum").and_then(Value::as_array).is_some_and(|e| e.len() >= 2))?;
            let e = p.get_mut("enum")?.as_array_mut()?;
            if matches!(m, Mutation::EnumValueAdded) {
                e.push(json!("zz_added"));
                "enum-value-added"
            } else {
                e.pop();
                "enum-value-removed"
            }
        }
        Mutation::TypeWidened => {
            let (_, p) = props.iter_mut().find(|(_, p)| p.get("type") == Some(&json!("integer")))?;
            p["type"] = json!("number");
            "type-widened"
        }
        Mutation::ConstraintLoosened | Mutation::ConstraintTightened => {
            let (_, p) = props.iter_mut().find(|(_, p)| p.get("maxLength").is_some())?;
            let x = p["maxLength"].as_u64()?;
            if matches!(m, Mutation::ConstraintLoosened) {
                p["maxLength"] = json!(x + 10);
                "constraint-loosened"
            } else {
                p["maxLength"] = json!(x - 1);
                "constraint-tightened"
            }
        }
        Mutation::DefaultAdded => {
            let (_, p) = props
                .iter_mut()
                .find(|(_, p)| p.is_object() && p.get("default").is_none() && p.get("anyOf").is_none())?;
            p["default"] = json!("zz_default");
            "default-added"
        }
        Mutation::DescriptionChanged => unreachable!(),
    };
    Some((s, rule))
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        "[a-z$#/]{0,8}".prop_map(Value::String),
        proptest::sample::select(vec![
            "type",
            "properties",
            "$ref",
            "#",
            "#/$defs/a",
            "items",
            "anyOf",
            "required",
            "enum",
            "object",
            "null",
            "\u{200b}"
        ])
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::btree_map(
                proptest::sample::select(vec![
                    "type",
                    "properties",
                    "required",
                    "enum",
                    "const",
                    "items",
                    "prefixItems",
                    "anyOf",
                    "oneOf",
                    "allOf",
                    "not",
                    "$ref",
                    "$defs",
                    "definitions",
                    "additionalProperties",
                    "maximum",
                    "exclusiveMaximum",
                    "minimum",
                    "nullable",
                    "default",
                    "description",
                    "if",
                    "then",
                    "else",
                    "dependencies",
                    "a",
                    "b",
                ]),
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    #[test]
    fn identity_is_empty(s in surface_strategy()) {
        prop_assert_eq!(keys(&s, &s), vec![]);
    }

    #[test]
    fn shuffle_is_empty(s in surface_strategy(), seed in any::<u64>()) {
        let mut rng = TestRng(seed);
        let t = shuffled_text(&s, &mut rng);
        prop_assert_eq!(keys(&s, &t), vec![]);
        prop_assert_eq!(keys(&t, &s), vec![]);
    }

    #[test]
    fn inline_vs_ref_is_empty(s in surface_strategy()) {
        let t = inline_refs(&s);
        prop_assert_eq!(keys(&s, &t), vec![]);
        prop_assert_eq!(keys(&t, &s), vec![]);
    }

    #[test]
    fn single_mutation_yields_its_rule(s in surface_strategy(), which in 0usize..11) {
        let all = [
            Mutation::RequiredRemoved, Mutation::RequiredAdded, Mutation::PropertyAdded, Mutation::PropertyRemoved,
            Mutation::DescriptionChanged, Mutation::EnumValueAdded, Mutation::EnumValueRemoved, Mutation::TypeWidened,
            Mutation::ConstraintLoosened, Mutation::ConstraintTightened, Mutation::DefaultAdded,
        ];
        let m = all[which];
        if let Some((t, rule)) = mutate(&s, m) {
            let got: Vec<String> = keys(&s, &t).into_iter().map(|k| k.0).collect();
            prop_assert_eq!(got, vec![rule.to_string()], "mutation {:?}", m);
            // and the mutation survives a shuffle of both sides
            let mut rng = TestRng(7);
            let got2: Vec<String> = keys(&shuffled_text(&s, &mut rng), &inline_refs(&t)).into_iter().map(|k| k.0).collect();
            prop_assert_eq!(got2, vec![rule.to_string()], "mutation {:?} (shuffled, inlined)", m);
        }
    }

    #[test]
    fn never_panics_on_arbitrary_json(a in arb_json(), b in arb_json()) {
        let d1 = diff_tool("t", &json!({"name": "t", "inputSchema": a.clone(), "outputSchema": b.clone()}), &json!({"name": "t", "inputSchema": b.clone(), "outputSchema": a.clone()}));
        let d2 = diff_tool("t", &a, &b);
        for c in d1.iter().chain(&d2) {
            prop_assert!(mcp_pin::rules::lookup(c.rule).is_some(), "unknown rule {}", c.rule);
            prop_assert!(!c.message.chars().any(mcp_pin::diff::text::is_hidden), "raw hidden character in {:?}", c.message);
        }
        let d = diff_tool("t", &json!({"inputSchema": a.clone()}), &json!({"inputSchema": a.clone()}));
        prop_assert!(d.is_empty(), "identity on arbitrary json: {:?}", d.iter().map(|c| (&c.rule, &c.pointer)).collect::<Vec<_>>());
    }
}

/// Nested deeper than the walker goes: a change below the cap is `schema-too-deep`, an equal deep
/// schema is nothing, and neither overflows the stack of a default 2 MiB thread. (serde_json parses
/// at most 128 nested levels, so parsed input never gets this deep; these are built in memory.)
#[test]
fn deep_schema_is_capped_not_crashed() {
    fn nest(depth: usize, leaf: &str) -> Value {
        let mut v = json!({"type": leaf});
        for _ in 0..depth {
            v = json!({"type": "object", "properties": {"a": v}});
        }
        v
    }
    let h = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            for depth in [130usize, 200, 300] {
                let a = json!({"name": "deep", "inputSchema": nest(depth, "string")});
                let b = json!({"name": "deep", "inputSchema": nest(depth, "integer")});
                let d = diff_tool("deep", &a, &b);
                assert_eq!(d.len(), 1, "{d:?}");
                assert_eq!(d[0].rule, "schema-too-deep");
                assert!(diff_tool("deep", &a, &a).is_empty());
                // leak instead of dropping: serde_json drops recursively
                std::mem::forget((a, b));
            }
        })
        .unwrap();
    h.join().expect("no stack overflow or panic");
}

#[test]
fn mutations_apply_somewhere() {
    // guard against a generator that never lets a mutation apply
    let s = json!({"tools": [{"name": "x", "description": "d", "inputSchema": {"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "string", "enum": ["red", "blue"], "maxLength": 9}, "c": {"type": "string"}}, "required": ["a"]}}]});
    for m in [
        Mutation::RequiredRemoved,
        Mutation::RequiredAdded,
        Mutation::PropertyAdded,
        Mutation::PropertyRemoved,
        Mutation::DescriptionChanged,
        Mutation::EnumValueAdded,
        Mutation::EnumValueRemoved,
        Mutation::TypeWidened,
        Mutation::ConstraintLoosened,
        Mutation::ConstraintTightened,
        Mutation::DefaultAdded,
    ] {
        let (t, rule) = mutate(&s, m).unwrap_or_else(|| panic!("{m:?} does not apply"));
        let got: Vec<String> = keys(&s, &t).into_iter().map(|k| k.0).collect();
        assert_eq!(got, vec![rule.to_string()], "{m:?}");
    }
}
