//! `cargo bench --bench diff`: diff two surfaces of N realistic tools and print the time, for
//! N = 100, 1,000, 5,000 and 10,000, to show that the diff grows linearly with the surface; once
//! with 1% of the tools changed (the common case) and once with every tool changed (every tool
//! walked in full).
//! Plain `main` (harness = false): no bench framework needed.
#![allow(clippy::disallowed_macros)] // tests print SKIP lines and diagnostics directly

use std::time::Instant;

use mcp_pin::diff::{diff_surfaces, surface_from_json};
use serde_json::{json, Value};

/// A tool shaped like the ones real servers send: draft-07 `$schema`, closed objects, enums,
/// a Python-style nullable, a nested object behind a `$ref`, an array of objects, outputSchema.
fn tool(i: usize, variant: u32) -> Value {
    let status = if variant == 1 { json!(["open", "closed"]) } else { json!(["open", "closed", "archived"]) };
    let limit_max = if variant == 2 { 500 } else { 100 };
    let desc = if variant == 3 {
        format!("Search records of kind {i}. Use it first.")
    } else {
        format!("Search records of kind {i}.")
    };
    json!({
        "name": format!("tool_{i:05}"),
        "title": format!("Tool {i}"),
        "description": desc,
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for", "minLength": 1, "maxLength": 200},
                "limit": {"type": "integer", "minimum": 1, "maximum": limit_max, "default": 10},
                "cursor": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Cursor"},
                "filters": {"$ref": "#/definitions/Filters"},
                "sort": {"type": "array", "items": {"type": "object", "properties": {
                    "field": {"type": "string", "enum": ["created", "updated", "name"]},
                    "order": {"type": "string", "enum": ["asc", "desc"], "default": "asc"}}, "required": ["field"]}}
            },
            "required": ["query"],
            "additionalProperties": false,
            "definitions": {"Filters": {"type": "object", "properties": {
                "status": {"type": "string", "enum": status},
                "owner": {"type": "string", "format": "email"},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 10}
            }, "additionalProperties": false}}
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "id": {"type": "string"}, "score": {"type": "number"}, "url": {"type": "string", "format": "uri"}},
                    "required": ["id"]}},
                "next": {"type": ["string", "null"]}
            },
            "required": ["items"]
        },
        "annotations": {"readOnlyHint": true, "openWorldHint": false},
        "execution": {"taskSupport": "forbidden"}
    })
}

/// `every`: change every `every`-th tool (0 = none), in three different ways.
fn surface(n: usize, every: usize) -> Value {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            let variant = if every > 0 && i % every == every / 2 { 1 + (i % 3) as u32 } else { 0 };
            tool(i, variant)
        })
        .collect();
    json!({"tools": tools, "protocolVersion": "2025-11-25", "serverInfo": {"name": "bench", "version": "1.0.0"}})
}

fn main() {
    println!("{:>8} {:>9} {:>10} {:>12} {:>10}", "tools", "changed", "changes", "diff ms", "us/tool");
    for (n, every) in
        [(100usize, 100usize), (1_000, 100), (5_000, 100), (10_000, 100), (100, 1), (1_000, 1), (5_000, 1), (10_000, 1)]
    {
        let old = surface_from_json(&surface(n, 0));
        let new = surface_from_json(&surface(n, every));
        // warm up once, then take the best of three
        let _ = diff_surfaces(&old, &new);
        let mut best = f64::MAX;
        let mut count = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let d = diff_surfaces(&old, &new);
            best = best.min(t.elapsed().as_secs_f64() * 1000.0);
            count = d.len();
        }
        let share = if every == 1 { "all" } else { "1%" };
        println!("{n:>8} {share:>9} {count:>10} {best:>12.1} {:>10.1}", best * 1000.0 / n as f64);
    }
}
