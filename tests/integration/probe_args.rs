//! Argument synthesis: fixed cases from real servers and proptest-generated schemas. Whatever
//! `synthesize_args` returns must validate against its schema (checked here independently with
//! the `jsonschema` crate, formats asserted), and the same schema must always give the same
//! arguments.

use mcp_pin::probe::synthesize_args;
use mcp_pin::probe::validate::{compile, Formats};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn valid(schema: &Value, args: &Map<String, Value>) -> bool {
    compile(schema, Formats::Assert).expect("schema compiles").is_valid(&Value::Object(args.clone()))
}

fn synth(schema: Value) -> Value {
    let a = synthesize_args(&schema).unwrap_or_else(|e| panic!("no args for {schema}: {e}"));
    assert!(valid(&schema, &a), "{schema} -> {a:?}");
    assert_eq!(synthesize_args(&schema).unwrap(), a, "not deterministic");
    Value::Object(a)
}

/// `PROPTEST_CASES` raises the number of cases for a longer local run.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

const D7: &str = "http://json-schema.org/draft-07/schema#";

#[test]
fn server_everything_schemas() {
    let lock: Value = serde_json::from_str(include_str!("../../mcp.lock.example")).unwrap();
    let (_, server) = lock["servers"].as_object().unwrap().iter().next().expect("one server in the example lock");
    let tools = server["tools"].as_object().unwrap();
    assert!(tools.len() >= 10);
    for (name, t) in tools {
        let schema = &t["inputSchema"];
        let a = synthesize_args(schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(valid(schema, &a), "{name}: {a:?}");
    }
    assert_eq!(synth(tools["echo"]["inputSchema"].clone()), json!({"message": ""}));
    assert_eq!(synth(tools["get-sum"]["inputSchema"].clone()), json!({"a": 0, "b": 0}));
    assert_eq!(synth(tools["get-annotated-message"]["inputSchema"].clone()), json!({"messageType": "error"}));
    assert_eq!(synth(tools["get-structured-content"]["inputSchema"].clone()), json!({"location": "New York"}));
    // Only required properties: defaults of optional ones are not sent.
    assert_eq!(synth(tools["get-resource-reference"]["inputSchema"].clone()), json!({}));
}

#[test]
fn python_style_optional_with_null_default() {
    // mcp-server-git: `anyOf [X, {type: null}]` with `default: null`.
    let schema = json!({
        "type": "object",
        "properties": {
            "repo_path": {"title": "Repo Path", "type": "string"},
            "max_count": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "title": "Max Count"},
            "target": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
        },
        "required": ["repo_path"],
        "title": "GitLog"
    });
    assert_eq!(synth(schema), json!({"repo_path": ""}));
    // Required, nullable, no default: non-null first.
    let schema = json!({"type": "object", "required": ["n"], "properties": {"n": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 3}]}}});
    assert_eq!(synth(schema), json!({"n": 3}));
    // Required with default null: the default is used (it is valid).
    let schema = json!({"type": "object", "required": ["n"], "properties": {"n": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null}}});
    assert_eq!(synth(schema), json!({"n": null}));
}

#[test]
fn keyword_precedence() {
    let s = json!({"type": "object", "required": ["a", "b", "c", "d"], "properties": {
        "a": {"type": "string", "const": "fixed", "default": "nope"},
        "b": {"type": "integer", "default": 7, "examples": [9]},
        "c": {"type": "string", "examples": ["ex"], "enum": ["x", "ex"]},
        "d": {"type": "string", "enum": ["first", "second"]}
    }});
    assert_eq!(synth(s), json!({"a": "fixed", "b": 7, "c": "ex", "d": "first"}));
    // An invalid default is passed over.
    let s = json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 5, "default": 1}}});
    assert_eq!(synth(s), json!({"n": 5}));
}

#[test]
fn formats() {
    for f in [
        "date",
        "date-time",
        "time",
        "email",
        "uri",
        "uuid",
        "ipv4",
        "ipv6",
        "hostname",
        "duration",
        "uri-reference",
        "json-pointer",
    ] {
        for dialect in [None, Some(D7)] {
            let mut s =
                json!({"type": "object", "required": ["v"], "properties": {"v": {"type": "string", "format": f}}});
            if let Some(d) = dialect {
                s["$schema"] = json!(d);
            }
            let a = synth(s);
            assert!(a["v"].as_str().is_some_and(|v| !v.is_empty()), "{f}: {a}");
        }
    }
}

#[test]
fn strings_lengths_and_patterns() {
    let s = json!({"type": "object", "required": ["a", "b", "c", "d"], "properties": {
        "a": {"type": "string", "minLength": 3, "maxLength": 4},
        "b": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
        "c": {"type": "string", "pattern": "^[a-z]+$", "minLength": 5},
        "d": {"type": "string", "pattern": "x"}
    }});
    let a = synth(s);
    assert_eq!(a["a"], "aaa");
    assert_eq!(a["b"].as_str().unwrap().len(), 8);
    assert!(a["c"].as_str().unwrap().len() >= 5);
    assert_eq!(a["d"], "x");
}

#[test]
fn numbers() {
    let s = json!({"type": "object", "required": ["a", "b", "c", "d", "e", "f", "g"], "properties": {
        "a": {"type": "integer", "exclusiveMinimum": 0},
        "b": {"type": "number", "minimum": 0.5, "multipleOf": 0.25},
        "c": {"type": "integer", "maximum": -3},
        "d": {"type": "number", "minimum": 0.25, "multipleOf": 0.1},
        "e": {"type": "integer", "minimum": 10, "maximum": 20, "multipleOf": 7},
        "f": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "g": {"type": "number"}
    }});
    let a = synth(s);
    assert_eq!(a["a"], 1);
    assert_eq!(a["b"].as_f64(), Some(0.5));
    assert_eq!(a["c"], -3);
    assert_eq!(a["d"].as_f64(), Some(0.3));
    assert_eq!(a["e"], 14);
    assert_eq!(a["f"].as_f64(), Some(0.5));
    assert_eq!(a["g"], 0);
    // draft-04 boolean exclusiveMinimum
    let s = json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}});
    assert_eq!(synth(s)["n"], 1);
}

#[test]
fn refs_nested_objects_and_arrays() {
    let s = json!({
        "$schema": D7,
        "type": "object",
        "definitions": {"point": {"type": "object", "required": ["x", "y"], "properties": {"x": {"type": "number"}, "y": {"type": "number"}, "z": {"type": "number"}}}},
        "required": ["from", "path", "tags"],
        "properties": {
            "from": {"$ref": "#/definitions/point"},
            "path": {"type": "array", "minItems": 2, "items": {"$ref": "#/definitions/point"}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opt": {"type": "string"}
        }
    });
    assert_eq!(synth(s), json!({"from": {"x": 0, "y": 0}, "path": [{"x": 0, "y": 0}, {"x": 0, "y": 0}], "tags": []}));
    let s = json!({
        "type": "object",
        "$defs": {"kind": {"enum": ["a", "b", "c"]}, "node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "required": ["kinds", "tree"],
        "properties": {
            "kinds": {"type": "array", "minItems": 3, "uniqueItems": true, "items": {"$ref": "#/$defs/kind"}},
            "tree": {"$ref": "#/$defs/node"}
        }
    });
    assert_eq!(synth(s), json!({"kinds": ["a", "b", "c"], "tree": {}}));
    // zod-to-json-schema style refs into properties
    let s = json!({"type": "object", "required": ["a", "b"], "properties": {
        "a": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 2}}},
        "b": {"$ref": "#/properties/a"}
    }});
    assert_eq!(synth(s), json!({"a": {"n": 2}, "b": {"n": 2}}));
}

#[test]
fn composition() {
    let s = json!({"type": "object", "required": ["v"], "properties": {"v": {"allOf": [
        {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
        {"required": ["b"], "properties": {"b": {"type": "integer", "minimum": 1}}},
        {"properties": {"a": {"minLength": 2}}}
    ]}}});
    assert_eq!(synth(s), json!({"v": {"a": "aa", "b": 1}}));
    let s = json!({"type": "object", "required": ["v"], "properties": {"v": {"oneOf": [
        {"type": "string", "minLength": 1},
        {"type": "string", "maxLength": 3}
    ]}}});
    // The first branch's smallest ("a") matches both branches; oneOf needs exactly one.
    let v = synth(s);
    assert!(v["v"].as_str().unwrap().len() > 3 || v["v"] == "", "{v}");
    let s = json!({"type": "object", "required": ["v"], "properties": {"v": {"type": ["null", "boolean"]}}});
    assert_eq!(synth(s), json!({"v": false}));
    // titled enum (MCP spec's spelling)
    let s = json!({"type": "object", "required": ["v"], "properties": {"v": {"type": "string", "oneOf": [{"const": "lo", "title": "Low"}, {"const": "hi", "title": "High"}]}}});
    assert_eq!(synth(s), json!({"v": "lo"}));
}

#[test]
fn no_type_at_top_is_still_an_object() {
    assert_eq!(synth(json!({"properties": {"a": {"type": "string"}}, "required": ["a"]})), json!({"a": ""}));
    assert_eq!(synth(json!({})), json!({}));
}

#[test]
fn impossible_schemas_say_which_property() {
    let e = synthesize_args(&json!({"type": "object", "required": ["cfg"], "properties": {"cfg": {"type": "object", "required": ["level"], "properties": {"level": {"type": "integer", "minimum": 5, "maximum": 3}}}}})).unwrap_err();
    assert!(e.contains("cfg.level"), "{e}");
    let e = synthesize_args(&json!({"type": "object", "required": ["x"], "properties": {"x": false}})).unwrap_err();
    assert!(e.contains("`x`"), "{e}");
    let e = synthesize_args(&json!({"type": "object", "required": ["x"], "additionalProperties": false})).unwrap_err();
    assert!(e.contains("`x`"), "{e}");
    let e = synthesize_args(
        &json!({"type": "object", "required": ["x"], "properties": {"x": {"type": "string", "pattern": "^(?=a)b$"}}}),
    )
    .unwrap_err();
    assert!(e.contains("`x`") && e.contains("pattern"), "{e}");
    let e = synthesize_args(
        &json!({"type": "object", "required": ["x"], "properties": {"x": {"$ref": "https://example.invalid/s.json"}}}),
    )
    .unwrap_err();
    assert!(e.contains("cannot be compiled") || e.contains("$ref"), "{e}");
}

// ---- proptest: generated schemas ----

fn leaf() -> impl Strategy<Value = Value> {
    let string = (0u64..4, 0u64..6, prop::option::of(0usize..12), prop::option::of(0usize..6)).prop_map(
        |(min, extra, format, pattern)| {
            const FORMATS: [&str; 12] = [
                "date",
                "date-time",
                "time",
                "email",
                "uri",
                "uuid",
                "ipv4",
                "ipv6",
                "hostname",
                "duration",
                "uri-reference",
                "regex",
            ];
            const PATTERNS: [&str; 6] = [
                "^[a-z]+$",
                "^\\d{3}$",
                "^(foo|bar)-[0-9]+$",
                "[A-Z]",
                "^v\\d+\\.\\d+\\.\\d+$",
                "^[a-f0-9]{8}(-[a-f0-9]{4}){3}$",
            ];
            if let Some(f) = format {
                json!({"type": "string", "format": FORMATS[f]})
            } else if let Some(p) = pattern {
                json!({"type": "string", "pattern": PATTERNS[p]})
            } else {
                json!({"type": "string", "minLength": min, "maxLength": min + extra})
            }
        },
    );
    let integer = (-50i64..50, 0i64..30, prop::option::of(1i64..6), any::<bool>()).prop_map(|(lo, width, m, excl)| {
        let mut s = json!({"type": "integer"});
        let hi = lo + width.max(m.unwrap_or(1)) * 2 + 2;
        if excl {
            s["exclusiveMinimum"] = json!(lo);
            s["exclusiveMaximum"] = json!(hi);
        } else {
            s["minimum"] = json!(lo);
            s["maximum"] = json!(hi);
        }
        if let Some(m) = m {
            s["multipleOf"] = json!(m);
        }
        s
    });
    let number = (-100i32..100, prop::option::of(0usize..3)).prop_map(|(lo, m)| {
        let lo = f64::from(lo) / 4.0;
        let mut s = json!({"type": "number", "minimum": lo, "maximum": lo + 3.0});
        if let Some(m) = m {
            s["multipleOf"] = json!([0.5, 0.25, 0.1][m]);
        }
        s
    });
    let enums = prop::collection::vec("[a-z]{1,4}", 1..4).prop_map(|v| json!({"type": "string", "enum": v}));
    prop_oneof![
        string,
        integer,
        number,
        enums,
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        Just(json!({"const": 42})),
        Just(json!({"type": ["string", "null"], "maxLength": 0})),
        Just(json!({})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            // object with some required properties
            (prop::collection::btree_map("[a-z]{1,6}", inner.clone(), 0..4), prop::collection::vec(any::<bool>(), 4))
                .prop_map(|(props, req)| {
                    let required: Vec<&String> =
                        props.keys().zip(req.iter()).filter(|(_, r)| **r).map(|(k, _)| k).collect();
                    json!({"type": "object", "properties": props, "required": required})
                }),
            // arrays with a minimum count
            (inner.clone(), 0u64..3).prop_map(|(items, min)| json!({"type": "array", "items": items, "minItems": min})),
            // Python-style optional
            inner.clone().prop_map(|s| json!({"anyOf": [s, {"type": "null"}]})),
            // null first: non-null still preferred
            inner.clone().prop_map(|s| json!({"anyOf": [{"type": "null"}, s]})),
            // allOf merge
            (inner.clone(), "[a-z]{1,4}").prop_map(|(s, k)| json!({"allOf": [
                {"type": "object", "properties": {k.clone(): s}},
                {"required": [k]}
            ]})),
        ]
    })
}

/// Move some top-level properties behind `$ref`s (`$defs` or `definitions`).
fn with_refs(mut root: Value, which: &[bool], defs_key: &str) -> Value {
    let mut defs = Map::new();
    if let Some(props) = root.get_mut("properties").and_then(Value::as_object_mut) {
        for ((name, s), r) in props.iter_mut().zip(which.iter().cycle()) {
            if *r {
                defs.insert(format!("d_{name}"), s.clone());
                *s = json!({"$ref": format!("#/{defs_key}/d_{name}")});
            }
        }
    }
    root[defs_key] = Value::Object(defs);
    root
}

fn tool_schema() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map("[a-z]{1,6}", schema(), 0..5),
        prop::collection::vec(any::<bool>(), 5),
        prop::collection::vec(any::<bool>(), 5),
        0usize..3,
        any::<bool>(),
    )
        .prop_map(|(props, req, refs, dialect, defs)| {
            let required: Vec<&String> = props.keys().zip(req.iter()).filter(|(_, r)| **r).map(|(k, _)| k).collect();
            let mut root = json!({"type": "object", "properties": props, "required": required});
            root = with_refs(root, &refs, if defs { "$defs" } else { "definitions" });
            match dialect {
                1 => root["$schema"] = json!(D7),
                2 => root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema"),
                _ => {}
            }
            root
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(192), ..ProptestConfig::default() })]

    #[test]
    fn synthesised_args_validate(schema in tool_schema()) {
        let args = synthesize_args(&schema);
        prop_assert!(args.is_ok(), "no args for {}: {:?}", schema, args.err());
        let args = args.unwrap();
        prop_assert!(valid(&schema, &args), "{} -> {:?}", schema, args);
        // Smallest: nothing beyond the required top-level properties.
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        prop_assert!(args.keys().all(|k| required.contains(&k.as_str())));
        // Deterministic.
        prop_assert_eq!(synthesize_args(&schema).unwrap(), args);
    }
}

// ---- robustness: whatever a server sends as a schema, no panic, and Ok means valid ----

fn soup() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..100).prop_map(|n| json!(n)),
        (-10.0f64..10.0).prop_map(|f| json!(f)),
        prop_oneof![
            Just("string"),
            Just("integer"),
            Just("number"),
            Just("object"),
            Just("array"),
            Just("null"),
            Just("boolean"),
            Just("date"),
            Just("uri"),
            Just("^[a-z]*$"),
            Just("(a|b"),
            Just("#/$defs/x"),
            Just("#"),
            Just("#/properties/a"),
            Just("a"),
            Just("")
        ]
        .prop_map(|s| json!(s)),
    ];
    scalar.prop_recursive(4, 40, 5, |inner| {
        const KEYS: [&str; 30] = [
            "type",
            "properties",
            "required",
            "items",
            "prefixItems",
            "enum",
            "const",
            "default",
            "anyOf",
            "oneOf",
            "allOf",
            "not",
            "$ref",
            "$defs",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "minItems",
            "maxItems",
            "uniqueItems",
            "additionalProperties",
            "minProperties",
            "contains",
            "examples",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((0usize..30, inner.clone()), 0..5)
                .prop_map(|kv| { Value::Object(kv.into_iter().map(|(k, v)| (KEYS[k].to_string(), v)).collect()) }),
            prop::collection::btree_map("[a-c]", inner, 0..3)
                .prop_map(|m| json!({"type": "object", "properties": m, "required": m.keys().collect::<Vec<_>>()})),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn any_schema_is_handled_without_panic(schema in soup()) {
        if let Ok(args) = synthesize_args(&schema) {
            if let Ok(v) = compile(&schema, Formats::Assert) {
                prop_assert!(v.is_valid(&Value::Object(args.clone())), "{} -> {:?}", schema, args);
            }
        }
    }
}

/// Definitions that each refer to the next twice: inlined, 2^40 subschemas. Synthesis must
/// neither inline them nor search every combination: it ends at once, with arguments or with
/// a clear reason.
#[test]
fn a_ref_bomb_is_bounded() {
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        defs.insert(
            format!("d{i}"),
            json!({"anyOf": [{"$ref": format!("#/$defs/d{}", i + 1)}, {"type": "array", "items": {"$ref": format!("#/$defs/d{}", i + 1)}}]}),
        );
    }
    defs.insert("d40".into(), json!({"type": "string"}));
    let schema =
        json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}, "required": ["x"]});
    assert!(mcp_pin::probe::args::expanded_size(&schema, 1000) > 1000);
    match synthesize_args(&schema) {
        Ok(a) => assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&Value::Object(a))),
        Err(e) => assert!(e.contains("deeper") || e.contains("steps"), "{e}"),
    }
}

#[test]
fn expanded_size_counts_shared_definitions_once_per_use() {
    let schema = json!({"$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}, "y": {"$ref": "#/$defs/a"}}});
    // root, properties, x (+ its target: object + type), y (same)
    assert_eq!(mcp_pin::probe::args::expanded_size(&schema, 1000), 1 + 1 + (1 + 2) + (1 + 2));
    let recursive = json!({"$defs": {"n": {"properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"});
    assert!(mcp_pin::probe::args::expanded_size(&recursive, 1000) < 10);
}
