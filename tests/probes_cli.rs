//! The probes end to end: the real binary against the fixture MCP server (rmcp server side),
//! one scenario per probe rule.

mod common;

use common::*;
use serde_json::{json, Value};

fn ro(name: &str, extra: Value) -> Value {
    let mut t = json!({
        "name": name,
        "description": format!("Tool {name}."),
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        "annotations": {"readOnlyHint": true}
    });
    for (k, v) in extra.as_object().unwrap() {
        t[k] = v.clone();
    }
    t
}

fn out_schema() -> Value {
    json!({"type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]})
}

fn probes(report: &Value) -> Vec<(String, String, String, String)> {
    let mut v = vec![];
    for s in report["servers"].as_array().unwrap() {
        for p in s["probes"].as_array().unwrap() {
            v.push((
                p["tool"].as_str().unwrap().to_string(),
                p["kind"].as_str().unwrap().to_string(),
                p["outcome"].as_str().unwrap().to_string(),
                p["rule"].as_str().unwrap_or("").to_string(),
            ));
        }
    }
    v
}

fn has(ps: &[(String, String, String, String)], tool: &str, kind: &str, outcome: &str, rule: &str) -> bool {
    ps.iter().any(|p| p.0 == tool && p.1 == kind && p.2 == outcome && p.3 == rule)
}

#[test]
fn every_probe_rule_fires_on_its_scenario() {
    let p = Project::new();
    let surface = json!({
        "tools": [
            ro("healthy", json!({"outputSchema": out_schema()})),
            ro("no_struct", json!({"outputSchema": out_schema()})),
            ro("bad_struct", json!({"outputSchema": out_schema()})),
            ro("is_error", json!({})),
            ro("rpc_error", json!({})),
            ro("accepts", json!({})),
            ro("hangs", json!({})),
            ro("conflict", json!({"outputSchema": out_schema()})),
            ro("hologram", json!({})),
            {"name": "writer", "description": "Writes.", "inputSchema": {"type": "object"}}
        ],
        "calls": {
            "no_struct": {"result": {"content": [{"type": "text", "text": "3 results"}]}},
            "bad_struct": {"result": {"content": [{"type": "text", "text": "x"}], "structuredContent": {"total": "three"}}},
            "is_error": {"result": {"content": [{"type": "text", "text": "upstream exploded"}], "isError": true}},
            "rpc_error": {"error": {"code": -32603, "message": "internal error"}},
            "accepts": {"acceptIncomplete": true},
            "hangs": {"hang": true},
            "conflict": {"result": {"content": [{"type": "text", "text": "{\"total\": 4}"}], "structuredContent": {"total": 3}}},
            "hologram": {"result": {"content": [{"type": "hologram", "frames": 3}]}}
        }
    });
    p.write_json("surface.json", &surface);
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.fx]\ncommand = {:?}\nargs = [\"--surface\", \"surface.json\"]\ntimeout = \"2s\"\n",
            fixture_bin()
        ),
    );
    let started = std::time::Instant::now();
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (code, report) = p.check_json(&[]);
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "a hanging tool must not block the run");
    assert_eq!(code, 1, "{report:#}");
    let ps = probes(&report);
    assert!(has(&ps, "healthy", "call", "pass", ""), "{ps:?}");
    assert!(has(&ps, "healthy", "incomplete", "pass", ""), "{ps:?}");
    assert!(has(&ps, "no_struct", "call", "fail", "structured-content-missing"), "{ps:?}");
    assert!(has(&ps, "bad_struct", "call", "fail", "structured-content-invalid"), "{ps:?}");
    assert!(has(&ps, "is_error", "call", "fail", "call-failed"), "{ps:?}");
    assert!(has(&ps, "rpc_error", "call", "fail", "call-failed"), "{ps:?}");
    assert!(has(&ps, "accepts", "incomplete", "fail", "incomplete-call-accepted"), "{ps:?}");
    assert!(has(&ps, "hangs", "call", "fail", "call-timeout"), "{ps:?}");
    assert!(has(&ps, "conflict", "call", "fail", "text-structure-conflict"), "{ps:?}");
    assert!(has(&ps, "hologram", "call", "pass", ""), "an unknown content block type must not fail the probe: {ps:?}");
    assert!(ps.iter().any(|p| p.0 == "writer" && p.2 == "skipped"), "{ps:?}");
    // The skip says which config line enables it.
    let writer = report["servers"][0]["probes"].as_array().unwrap().iter().find(|p| p["tool"] == "writer").unwrap();
    assert!(writer["message"].as_str().unwrap().contains("[servers.fx.tools.writer]"), "{writer:#}");
    // Reports never print result values (the error excerpt aside).
    let all = report.to_string();
    assert!(!all.contains("three") && !all.contains("3 results"), "{all}");
    // The lock pinned shapes, never values.
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let shapes = &lock["servers"]["fx"]["probes"];
    assert_eq!(shapes["hologram"]["content"], json!(["hologram"]), "{shapes:#}");
    assert!(!p.read("mcp.lock").contains("upstream exploded"));
    // --no-probe turns them off for one run.
    let (_, report) = p.check_json(&["--no-probe"]);
    assert!(probes(&report).is_empty());
}

#[test]
fn replay_of_the_39_tools_structured_content_failure() {
    // An SDK upgrade began enforcing structured content: every tool lists an outputSchema and
    // every call returns text only. tools/list looks perfect; every call is broken.
    let p = Project::new();
    let tools: Vec<Value> = (0..39).map(|i| ro(&format!("t{i:02}"), json!({"outputSchema": out_schema()}))).collect();
    let calls: serde_json::Map<String, Value> = (0..39)
        .map(|i| (format!("t{i:02}"), json!({"result": {"content": [{"type": "text", "text": "ok"}]}})))
        .collect();
    p.write_json("surface.json", &json!({"tools": tools, "calls": calls}));
    p.stdio_config(&[("replay", "surface.json")]);
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    let missing: Vec<_> = probes(&report).into_iter().filter(|p| p.3 == "structured-content-missing").collect();
    assert_eq!(missing.len(), 39, "{report:#}");
    // No schema drift at all: tools/list alone would have passed.
    assert!(changes(&report).is_empty());
}

#[test]
fn result_shape_change_between_lock_and_check() {
    let p = Project::new();
    // No required argument: a fixed result answers every call, so no incomplete call is made.
    let tool = json!({"name": "img", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}});
    let surface = |result: Value| json!({"tools": [tool.clone()], "calls": {"img": {"result": result}}});
    p.write_json("surface.json", &surface(json!({"content": [{"type": "text", "text": "a picture"}]})));
    p.stdio_config(&[("fx", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    p.write_json(
        "surface.json",
        &surface(json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]})),
    );
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    assert!(has(&probes(&report), "img", "call", "fail", "result-shape-changed"), "{report:#}");
}

#[test]
fn probe_rules_follow_policy() {
    let p = Project::new();
    p.write_json(
        "surface.json",
        &json!({"tools": [ro("accepts", json!({}))], "calls": {"accepts": {"acceptIncomplete": true}}}),
    );
    p.stdio_config(&[("fx", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let (code, _) = p.check_json(&[]);
    assert_eq!(code, 1);
    let base = p.read("mcp-pin.toml");
    p.write("mcp-pin.toml", &format!("{base}\n[rules]\nincomplete-call-accepted = \"loud\"\n"));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let (code, _) = p.check_json(&["--fail-on", "loud"]);
    assert_eq!(code, 1);
}
