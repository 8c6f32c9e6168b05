//! Parsers of untrusted input never panic: lockfile, config (mcp-pin.toml and client JSON),
//! JSON reports to merge, and argument synthesis, on arbitrary text and arbitrary JSON; masking
//! never breaks a structured output.
//! (A generative stand-in for fuzzing, run on every `cargo test`.)

use std::path::Path;

use proptest::prelude::*;
use serde_json::{json, Value};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z$#/0-9 \\-_]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("type"),
            Just("object"),
            Just("required"),
            Just("properties"),
            Just("$ref"),
            Just("#/$defs/a"),
            Just("enum"),
            Just("tools"),
            Just("servers"),
            Just("lockfileVersion")
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("type".to_string()),
                    Just("properties".to_string()),
                    Just("required".to_string()),
                    Just("items".to_string()),
                    Just("$ref".to_string()),
                    Just("$defs".to_string()),
                    Just("anyOf".to_string()),
                    Just("enum".to_string()),
                    Just("minimum".to_string()),
                    Just("pattern".to_string()),
                    Just("servers".to_string()),
                    Just("tools".to_string()),
                    Just("inputSchema".to_string()),
                    Just("mcpServers".to_string()),
                    Just("command".to_string()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn lockfile_parse_never_panics(text in ".{0,200}", v in arb_json()) {
        let _ = mcp_pin::lockfile::Lockfile::parse(&text, Path::new("mcp.lock"));
        let _ = mcp_pin::lockfile::Lockfile::parse(&v.to_string(), Path::new("mcp.lock"));
        let wrapped = json!({"lockfileVersion": 1, "servers": {"s": v}});
        if let Ok(lock) = mcp_pin::lockfile::Lockfile::parse(&wrapped.to_string(), Path::new("mcp.lock")) {
            // What parses, diffs against itself to nothing and round-trips.
            let again = mcp_pin::lockfile::Lockfile::parse(&lock.to_text(), Path::new("mcp.lock")).unwrap();
            prop_assert_eq!(again.to_text(), lock.to_text());
        }
    }

    #[test]
    fn config_parse_never_panics(text in "[\\[\\]a-z_=\"{}, .\\n${}:/-]{0,200}", v in arb_json()) {
        let env = |_: &str| Some("x".to_string());
        let _ = mcp_pin::config::Config::parse_with(&text, Path::new("mcp-pin.toml"), Some(&env));
        let _ = mcp_pin::config::Config::parse_with(&v.to_string(), Path::new(".mcp.json"), Some(&env));
        let _ = mcp_pin::config::Config::parse_with(&v.to_string(), Path::new("mcp-pin.toml"), None);
    }

    #[test]
    fn report_merge_never_panics(v in arb_json()) {
        let _ = mcp_pin::report::merge_json(&[v.clone(), json!({"servers": [v]})], None);
    }

    #[test]
    fn argument_synthesis_never_panics(v in arb_json()) {
        let _ = mcp_pin::probe::synthesize_args(&v);
        let _ = mcp_pin::probe::synthesize_args(&json!({"type": "object", "properties": {"a": v.clone()}, "required": ["a"]}));
    }

    #[test]
    fn diff_of_arbitrary_tools_never_panics(a in arb_json(), b in arb_json()) {
        let _ = mcp_pin::diff::diff_tool("t", &json!({"name": "t", "inputSchema": a.clone()}), &json!({"name": "t", "inputSchema": b.clone()}));
        let _ = mcp_pin::diff::diff_tool("t", &a, &b);
    }
}

/// A surface pair whose strings hold what escapes are made of (`&`, `%`, `\`, quotes, `<`) and
/// JSON literals and numbers, for the masking target.
fn arb_surface_pair() -> impl Strategy<Value = String> {
    let text = prop_oneof![
        "[a-z0-9 &%<>\"'\\\\;#:/+=.-]{0,16}",
        Just("true".to_string()),
        Just("null".to_string()),
        Just("8080".to_string()),
        Just("&amp;%2B\\u002B".to_string()),
    ];
    let tool = (text.clone(), text.clone(), text.clone(), any::<bool>(), any::<i32>()).prop_map(|(name, d, e, b, n)| {
        json!({"name": format!("t{name}"), "description": d, "annotations": {"readOnlyHint": b},
               "inputSchema": {"type": "object", "properties": {e.clone(): {"type": "string", "enum": [e, d], "maximum": n}}}})
    });
    (prop::collection::vec(tool.clone(), 0..4), prop::collection::vec(tool, 0..4), text)
        .prop_map(|(a, b, i)| json!([{"tools": a, "instructions": i}, {"tools": b}]).to_string())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The `mask` fuzz target's invariants (every structured output parses, the lock is a fixed
    /// point with no registered value and digests of what it holds, no drift masked to masked).
    #[test]
    fn masking_never_breaks_a_structured_output(pair in arb_surface_pair()) {
        mcp_pin::fuzzing::mask(pair.as_bytes());
    }
}
