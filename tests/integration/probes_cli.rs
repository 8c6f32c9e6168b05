//! The probes end to end: the real binary against the fixture MCP server (rmcp server side),
//! one scenario per probe rule.

use crate::common;

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

/// Whether mcp-pin (the binary, which has its helper) has a sandbox on this machine.
fn linux_sandbox() -> bool {
    #[cfg(target_os = "linux")]
    return mcp_pin::sandbox::linux::sandbox_available().is_ok();
    #[cfg(not(target_os = "linux"))]
    return false;
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
    // Locked while every tool worked (the fixture's default answers), checked after the release
    // broke them: a call that already failed at lock with every argument tried is not drift.
    let mut healthy = surface.clone();
    let calls = healthy["calls"].as_object_mut().unwrap();
    for t in ["no_struct", "bad_struct", "is_error", "rpc_error", "conflict"] {
        calls.remove(t);
    }
    p.write_json("surface.json", &healthy);
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
    p.write_json("surface.json", &surface);
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
    // Not annotated read-only: called in the sandbox where there is one, else skipped with the
    // config line that calls it in the server's own session.
    let writer = report["servers"][0]["probes"].as_array().unwrap().iter().find(|p| p["tool"] == "writer").unwrap();
    if linux_sandbox() {
        assert!(has(&ps, "writer", "call", "pass", ""), "{ps:?}");
        assert_eq!(writer["place"], "sandbox", "{writer:#}");
    } else {
        assert!(ps.iter().any(|p| p.0 == "writer" && p.2 == "skipped"), "{ps:?}");
        assert!(
            writer["message"].as_str().unwrap().contains("[servers.fx.tools.writer] probe = \"all\""),
            "{writer:#}"
        );
    }
    // Reports print result values only where RULES.md asks: the error excerpt, and each
    // probe's `answered` (the head of what it answered, masked).
    let no_struct =
        report["servers"][0]["probes"].as_array().unwrap().iter().find(|p| p["tool"] == "no_struct").unwrap();
    assert_eq!(no_struct["answered"], "3 results", "{no_struct:#}");
    let mut without = report.clone();
    for p in without["servers"][0]["probes"].as_array_mut().unwrap() {
        p.as_object_mut().unwrap().remove("answered");
    }
    let all = without.to_string();
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
    // A lock without probes (`--no-probe`, or an mcp-pin from before them): the tools are judged
    // from the next `lock` on, never before, so an upgrade never fails the first check.
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        report["servers"][0]["probeSummary"],
        "39 tools: 0 probed, 0 passed, 0 failed; 39 skipped (39 nothing pinned yet)"
    );
    // The next lock probes them and says so; every check after it fails on each tool.
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("structured-content-missing"), "{}", text(&out));
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

// ---- The result contract (RULES.md, "The result contract") -----------------------------------

/// A read-only tool without arguments (so no incomplete call) whose valid calls answer `lock`
/// first, then `check` (the fixture's `results`, counted across processes).
fn scripted(name: &str, extra: Value) -> Value {
    let mut t = json!({"name": name, "description": format!("Tool {name}."), "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}});
    for (k, v) in extra.as_object().unwrap() {
        t[k] = v.clone();
    }
    t
}

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const JPEG: &str = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBD";

fn text_block(t: &str) -> Value {
    json!({"type": "text", "text": t})
}
fn image(data: &str, mime: &str) -> Value {
    json!({"type": "image", "data": data, "mimeType": mime})
}
fn link(uri: &str, mime: Option<&str>) -> Value {
    let mut l = json!({"type": "resource_link", "uri": uri, "name": "doc"});
    if let Some(m) = mime {
        l["mimeType"] = json!(m);
    }
    l
}
fn embedded(uri: &str, mime: &str) -> Value {
    json!({"type": "resource", "resource": {"uri": uri, "mimeType": mime, "text": "# doc"}})
}
fn with_audience(mut b: Value, aud: Value) -> Value {
    b["annotations"] = json!({"audience": aud});
    b
}
fn result(content: Vec<Value>, sc: Option<Value>) -> Value {
    let mut r = json!({"content": content});
    if let Some(sc) = sc {
        r["structuredContent"] = sc;
    }
    r
}

struct Case {
    tool: &'static str,
    def: Value,
    lock: Value,
    check: Value,
    /// The failing rules `check` reports for the tool (empty: the call passes).
    want: Vec<&'static str>,
    /// A substring of the first failure's message.
    says: &'static str,
}

fn case(tool: &'static str, lock: Value, check: Value, want: &[&'static str], says: &'static str) -> Case {
    Case { tool, def: json!({}), lock, check, want: want.to_vec(), says }
}

const CHANGED: &str = "result-shape-changed";
const REDUCED: &str = "result-shape-reduced";

/// Lock with each case's first result, check with its second; returns the exit code and report.
fn run_cases(cases: &[Case]) -> (Project, i32, Value) {
    let p = Project::new();
    let tools: Vec<Value> = cases.iter().map(|c| scripted(c.tool, c.def.clone())).collect();
    let calls: serde_json::Map<String, Value> =
        cases.iter().map(|c| (c.tool.to_string(), json!({"results": [c.lock, c.check]}))).collect();
    p.write_json("surface.json", &json!({"tools": tools, "calls": calls}));
    p.stdio_config(&[("fx", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (code, report) = p.check_json(&[]);
    (p, code, report)
}

fn assert_cases(cases: &[Case], report: &Value) {
    let all = report["servers"][0]["probes"].as_array().unwrap();
    let mut bad = vec![];
    for c in cases {
        let mine: Vec<&Value> = all.iter().filter(|p| p["tool"] == c.tool && p["kind"] == "call").collect();
        let mut got: Vec<&str> =
            mine.iter().filter(|p| p["outcome"] == "fail").map(|p| p["rule"].as_str().unwrap()).collect();
        got.sort();
        got.dedup();
        let mut want = c.want.clone();
        want.sort();
        if got != want {
            bad.push(format!("{}: want {:?}, got {:?}: {:?}", c.tool, want, got, mine));
            continue;
        }
        if want.is_empty() {
            if !(mine.len() == 1 && mine[0]["outcome"] == "pass") {
                bad.push(format!("{}: want a pass: {mine:?}", c.tool));
            }
        } else if !mine.iter().any(|p| p["message"].as_str().unwrap().contains(c.says)) {
            bad.push(format!("{}: no message says {:?}: {mine:?}", c.tool, c.says));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_result_atom_changed_in_each_direction() {
    let t = || text_block("some text");
    let os = json!({"outputSchema": {"type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]}});
    let mut cases = vec![
        // structuredContent: presence and top-level type (with or without an outputSchema)
        case("sc_gone", result(vec![t()], Some(json!({"a": 1}))), result(vec![t()], None), &[CHANGED],
             "structuredContent of tool sc_gone: present at lock (object), absent now"),
        case("sc_null", result(vec![t()], Some(json!({"a": 1}))), result(vec![t()], Some(Value::Null)), &[CHANGED], "absent now"),
        case("sc_appears", result(vec![t()], None), result(vec![t()], Some(json!({"a": 1}))), &[], ""),
        case("sc_to_array", result(vec![], Some(json!({"a": 1}))), result(vec![], Some(json!([1]))), &[CHANGED],
             "structuredContent of tool sc_to_array: object is now array"),
        case("sc_to_object", result(vec![], Some(json!([1]))), result(vec![], Some(json!({"a": 1}))), &[CHANGED], "array is now object"),
        // without an outputSchema: the skeleton at every depth
        case("get_stock", result(vec![], Some(json!({"stock": {"on_hand": 3}}))), result(vec![], Some(json!({"stock": {"on_hand": "3"}}))),
             &[CHANGED], "structuredContent.stock.on_hand of tool get_stock: integer is now string"),
        case("deep_back", result(vec![], Some(json!({"stock": {"on_hand": "3"}}))), result(vec![], Some(json!({"stock": {"on_hand": 3}}))),
             &[CHANGED], "structuredContent.stock.on_hand of tool deep_back: string is now integer"),
        case("in_array", result(vec![], Some(json!({"hits": [{"id": 1}]}))), result(vec![], Some(json!({"hits": [{"id": "1"}, {"id": "2"}]}))),
             &[CHANGED], "structuredContent.hits[].id of tool in_array: integer is now string"),
        case("key_gone", result(vec![], Some(json!({"a": 1, "b": "x"}))), result(vec![], Some(json!({"a": 2}))), &[REDUCED],
             "structuredContent.b of tool key_gone: pinned key is absent this time"),
        case("key_new", result(vec![], Some(json!({"a": 1}))), result(vec![], Some(json!({"a": 1, "b": 2}))), &[], ""),
        // block kinds: a sequence when counts are unchanged, first appearance when they are not
        case("kind_gone", result(vec![t(), link("file:///a", None)], None), result(vec![t()], None), &[REDUCED],
             "content of tool kind_gone: no resource link this time"),
        case("kind_new", result(vec![t()], None), result(vec![t(), image(PNG, "image/png")], None), &[CHANGED], "image block never seen at lock"),
        case("order_swap", result(vec![t(), image(PNG, "image/png")], None), result(vec![image(PNG, "image/png"), t()], None), &[CHANGED],
             "block order changed from [text, image] to [image, text]"),
        case("first_order", result(vec![t(), link("file:///a", None), link("file:///b", None)], None),
             result(vec![link("file:///a", None), t()], None), &[CHANGED], "first appear in another order"),
        case("body_kind", result(vec![embedded("file:///a", "text/plain")], None),
             result(vec![json!({"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "blob": "QUJD"}})], None),
             &[CHANGED, REDUCED], "embedded resource (blob) never seen at lock"),
        case("body_kind_back", result(vec![json!({"type": "resource", "resource": {"uri": "file:///a", "mimeType": "text/plain", "blob": "QUJD"}})], None),
             result(vec![embedded("file:///a", "text/plain")], None), &[CHANGED, REDUCED], "embedded resource (text) never seen at lock"),
        // per block: URI scheme, MIME type (profile kept), audience
        case("fetch_doc", result(vec![embedded("file:///docs/a.md", "text/markdown")], None),
             result(vec![embedded("https://cdn.example/a.md", "text/markdown")], None), &[CHANGED],
             "embedded resource of tool fetch_doc: URI scheme changed from `file:` to `https:`"),
        case("scheme_back", result(vec![embedded("https://cdn.example/a.md", "text/markdown")], None),
             result(vec![embedded("file:///docs/a.md", "text/markdown")], None), &[CHANGED], "from `https:` to `file:`"),
        case("link_scheme", result(vec![link("file:///a", None)], None), result(vec![link("ui://widget/a", None)], None), &[CHANGED],
             "resource link of tool link_scheme: URI scheme changed from `file:` to `ui:`"),
        case("image_mime", result(vec![image(PNG, "image/png")], None), result(vec![image(JPEG, "image/jpeg")], None), &[CHANGED],
             "image block of tool image_mime: MIME type changed from `image/png` to `image/jpeg`"),
        case("profile_gone", result(vec![embedded("ui://w", "text/html;profile=mcp-app")], None), result(vec![embedded("ui://w", "text/html")], None),
             &[CHANGED], "from `text/html;profile=mcp-app` to `text/html`"),
        case("profile_new", result(vec![embedded("ui://w", "text/html")], None), result(vec![embedded("ui://w", "text/html;profile=mcp-app")], None),
             &[CHANGED], "from `text/html` to `text/html;profile=mcp-app`"),
        case("link_mime_gone", result(vec![link("file:///a", Some("text/plain"))], None), result(vec![link("file:///a", None)], None), &[REDUCED],
             "MIME type `text/plain` is no longer declared"),
        case("link_mime_new", result(vec![link("file:///a", None)], None), result(vec![link("file:///a", Some("text/plain"))], None), &[], ""),
        case("aud_narrow", result(vec![t()], None), result(vec![with_audience(t(), json!(["user"]))], None), &[CHANGED],
             "text block of tool aud_narrow: audience changed from [assistant, user] to [user]"),
        case("aud_widen", result(vec![with_audience(t(), json!(["user"]))], None), result(vec![t()], None), &[CHANGED],
             "audience changed from [user] to [assistant, user]"),
        case("aud_swap", result(vec![with_audience(image(PNG, "image/png"), json!(["assistant"]))], None),
             result(vec![with_audience(image(PNG, "image/png"), json!(["user"]))], None), &[CHANGED], "from [assistant] to [user]"),
        // the error flag: only a declared isError: true is an error
        case("now_error", result(vec![t()], None), json!({"content": [text_block("upstream down")], "isError": true}), &["call-failed"], "isError: true"),
        case("error_then_ok", json!({"content": [text_block("not yet")], "isError": true}), result(vec![t()], None), &[], ""),
        // agreement between the text and structured channels
        case("now_conflict", result(vec![text_block("{\"total\": 3}")], Some(json!({"total": 3.0}))),
             result(vec![text_block("{\"total\": 4}")], Some(json!({"total": 3}))), &["text-structure-conflict"], "differs from structuredContent"),
        case("text_then_both", result(vec![text_block("{\"total\": 3}")], None),
             result(vec![text_block("{\"total\": 4}")], Some(json!({"total": 3}))), &["text-structure-conflict"], "differs"),
        case("conflict_pinned", result(vec![text_block("{\"total\": 4}")], Some(json!({"total": 3}))),
             result(vec![text_block("{\"total\": 5}")], Some(json!({"total": 3}))), &[], ""),
        case("conflict_resolved", result(vec![text_block("{\"total\": 4}")], Some(json!({"total": 3}))),
             result(vec![text_block("{\"total\": 3}")], Some(json!({"total": 3}))), &[], ""),
        // per result: consistency
        case("payload_fixed", result(vec![image(JPEG, "image/png")], None), result(vec![image(PNG, "image/png")], None), &[], ""),
        case("bad_png", result(vec![image(PNG, "image/png")], None), result(vec![image(JPEG, "image/png")], None), &["result-payload-invalid"],
             "image block of tool bad_png: declares `image/png` but its bytes do not start with that type's magic number"),
        case("bad_json", result(vec![json!({"type": "resource", "resource": {"uri": "file:///a.json", "mimeType": "application/json", "text": "{\"a\": 1}"}})], None),
             result(vec![json!({"type": "resource", "resource": {"uri": "file:///a.json", "mimeType": "application/json", "text": "{not json"}})], None),
             &["result-payload-invalid"], "declares `application/json` but its text is not JSON"),
    ];
    // With an outputSchema: validation, and nothing deeper than the top level.
    let mut deep = case(
        "with_schema",
        result(vec![], Some(json!({"total": 1, "extra": {"x": 1}}))),
        result(vec![], Some(json!({"total": 2, "extra": {"x": "one"}}))),
        &[],
        "",
    );
    deep.def = os.clone();
    cases.push(deep);
    let mut invalid = case(
        "schema_invalid",
        result(vec![], Some(json!({"total": 1}))),
        result(vec![], Some(json!({"total": "1"}))),
        &["structured-content-invalid"],
        "does not match the outputSchema",
    );
    invalid.def = os;
    cases.push(invalid);
    let (p, code, report) = run_cases(&cases);
    assert_eq!(code, 1, "{report:#}");
    assert_cases(&cases, &report);
    // Loud findings are reported with their class; silent ones fail the gate.
    let human = text(&p.run(&["check"]));
    assert!(
        human.contains("embedded resource of tool fetch_doc: URI scheme changed from `file:` to `https:`"),
        "{human}"
    );
    // The lock pinned atoms, never values.
    let lock = p.read("mcp.lock");
    assert!(!lock.contains("cdn.example") && !lock.contains("docs/a.md") && !lock.contains(PNG), "{lock}");
    let v: Value = serde_json::from_str(&lock).unwrap();
    assert_eq!(
        v["servers"]["fx"]["probes"]["fetch_doc"]["blocks"],
        json!([{"kind": "resource(text)", "scheme": "file:", "mimeType": "text/markdown"}])
    );
}

#[test]
fn value_variation_passes_the_gate() {
    let hit = |id: i64, score: f64, tags: Value| json!({"id": id, "score": score, "tags": tags, "path": format!("/docs/{id}.md")});
    let links = |n: usize| -> Vec<Value> {
        (0..n).map(|i| json!({"type": "resource_link", "uri": format!("file:///docs/{i}.md"), "name": format!("doc {i}"), "title": format!("T{i}"), "size": i * 100, "mimeType": "text/markdown"})).collect()
    };
    let search = |text: &str, hits: Vec<Value>, n_links: usize| {
        let mut content = vec![text_block(text)];
        content.extend(links(n_links));
        result(content, Some(json!({"hits": hits, "total": n_links, "query": text})))
    };
    let cases = vec![
        case("other_text", result(vec![text_block("Hello")], None), result(vec![text_block("  Bonjour,\n\nworld  ")], None), &[], ""),
        case("other_numbers", result(vec![], Some(json!({"n": 3, "f": 1.5}))), result(vec![], Some(json!({"n": 4.0, "f": -2}))), &[], ""),
        case("other_lengths", search("q", vec![hit(1, 0.5, json!(["a"]))], 1),
             search("q", vec![hit(2, 1.0, json!([])), hit(3, 0.25, json!(["b", "c"])), hit(4, 0.0, json!(["d"]))], 3), &[], ""),
        case("key_order", result(vec![], Some(json!({"a": 1, "b": {"c": "x", "d": [1]}}))),
             result(vec![], Some(serde_json::from_str::<Value>(r#"{"b": {"d": [2, 3], "c": "y"}, "a": 2}"#).unwrap())), &[], ""),
        case("link_names_sizes", result(links(2), None),
             result(vec![json!({"type": "resource_link", "uri": "file:///elsewhere/x.md", "name": "other", "description": "new", "size": 12345, "mimeType": "text/markdown", "annotations": {"priority": 0.9, "lastModified": "2030-01-01T00:00:00Z"}, "_meta": {"x": 1}}), links(1)[0].clone()], None), &[], ""),
        case("mime_params", result(vec![embedded("file:///a", "text/plain")], None), result(vec![embedded("file:///a", "text/plain; charset=utf-8")], None), &[], ""),
        case("is_error_false_omitted", json!({"content": [text_block("a")], "isError": false}), result(vec![text_block("b")], None), &[], ""),
        case("other_bytes", result(vec![image(PNG, "image/png")], None),
             result(vec![image("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFElEQVR42mP8z8DwnwEJMDGgAQAF/wH/m0kqSQAAAABJRU5ErkJggg==", "image/png")], None), &[], ""),
    ];
    let (p, code, report) = run_cases(&cases);
    assert_eq!(code, 0, "{report:#}");
    assert_cases(&cases, &report);
    // A search that found nothing: no links this time is reduced (loud), and the gate passes.
    let empty = vec![case(
        "search",
        search("q", vec![hit(1, 0.5, json!(["a"]))], 2),
        search("nothing", vec![], 0),
        &[REDUCED],
        "no resource link this time",
    )];
    let (_, code, report) = run_cases(&empty);
    assert_eq!(code, 0, "{report:#}");
    assert_cases(&empty, &report);
    let (code, _) = p.check_json(&["--fail-on", "loud"]);
    assert_eq!(code, 0, "no loud finding either among the controls");
}

#[test]
fn a_call_that_fails_at_lock_with_synthesised_arguments_is_not_drift() {
    // A reader that fails whatever it is given (EISDIR for every path): at lock, each candidate
    // fails; at check, the pinned one fails again.
    let p = Project::new();
    let tool = json!({"name": "read_file", "description": "Read a file.", "annotations": {"readOnlyHint": true},
                      "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}});
    let eisdir = json!({"content": [{"type": "text", "text": "Error: EISDIR: illegal operation on a directory, read"}], "isError": true});
    p.write_json("surface.json", &json!({"tools": [tool], "calls": {"read_file": {"result": eisdir}}}));
    p.stdio_config(&[("fs", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no arguments mcp-pin tried made the call succeed"), "{err}");
    assert!(err.contains("[servers.fs.tools.read_file] args = { path = ... }"), "{err}");
    assert!(err.contains("probes: 1 tool: 1 probed (1 in the session), 0 passed, 1 failed; 0 skipped"), "{err}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let ps = probes(&report);
    assert!(has(&ps, "read_file", "call", "skipped", ""), "{ps:?}");
    let msg = report["servers"][0]["probes"][0]["message"].as_str().unwrap();
    assert!(msg.contains("[servers.fs.tools.read_file] args = { path = ... }") && msg.contains("EISDIR"), "{msg}");
    assert_eq!(
        report["servers"][0]["probeSummary"],
        "1 tool: 0 probed, 0 passed, 0 failed; 1 skipped (1 failed at lock with every argument set tried)"
    );
    // With a fixture the user wrote, the same failure fails the gate.
    let base = p.read("mcp-pin.toml");
    p.write("mcp-pin.toml", &format!("{base}\n[servers.fs.tools.read_file]\nargs = {{ path = \"/srv/a.txt\" }}\n"));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    assert!(has(&probes(&report), "read_file", "call", "fail", "call-failed"), "{report:#}");
}

#[test]
fn a_call_that_succeeded_at_lock_and_fails_now_fails_the_gate() {
    let p = Project::new();
    let tool = json!({"name": "read_file", "annotations": {"readOnlyHint": true},
                      "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}});
    let good = json!({"content": [{"type": "text", "text": "contents"}]});
    let bad = json!({"content": [{"type": "text", "text": "EISDIR"}], "isError": true});
    p.write_json("surface.json", &json!({"tools": [tool], "calls": {"read_file": {"results": [good, bad]}}}));
    p.stdio_config(&[("fs", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    assert!(has(&probes(&report), "read_file", "call", "fail", "call-failed"), "{report:#}");
    // The incomplete call is still judged (and rejected).
    assert!(has(&probes(&report), "read_file", "incomplete", "pass", ""), "{report:#}");
}

#[test]
fn replay_of_the_39_tools_failure_after_a_probed_lock() {
    // The calls succeeded at lock (structured content as promised), then the release dropped it.
    let p = Project::new();
    let tools: Vec<Value> =
        (0..39).map(|i| scripted(&format!("t{i:02}"), json!({"outputSchema": out_schema()}))).collect();
    let calls: serde_json::Map<String, Value> = (0..39)
        .map(|i| {
            let ok =
                json!({"content": [{"type": "text", "text": "{\"total\": 1}"}], "structuredContent": {"total": 1}});
            let text_only = json!({"content": [{"type": "text", "text": "ok"}]});
            (format!("t{i:02}"), json!({"results": [ok, text_only]}))
        })
        .collect();
    p.write_json("surface.json", &json!({"tools": tools, "calls": calls}));
    p.stdio_config(&[("replay", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    let fails: Vec<_> = probes(&report).into_iter().filter(|p| p.2 == "fail").collect();
    assert_eq!(fails.len(), 39, "one finding per tool, not two: {fails:?}");
    assert!(fails.iter().all(|p| p.3 == "structured-content-missing"), "{fails:?}");
    assert_eq!(
        report["servers"][0]["probeSummary"],
        "39 tools: 39 probed (39 in the session), 0 passed, 39 failed; 0 skipped"
    );
}

#[test]
fn a_lockfile_from_before_the_result_contract_reads_and_checks_clean() {
    // Lock with today's format, then take the new atoms out of the pin, the way the previous
    // mcp-pin wrote it (distinct kinds, first-element skeletons, no `blocks`).
    let lock_result = result(
        vec![text_block("x"), link("file:///a", Some("text/plain")), embedded("file:///b", "text/markdown")],
        Some(json!({"stock": {"on_hand": 3}})),
    );
    let check_result = result(
        vec![with_audience(text_block("y"), json!(["user"])), link("https://a", None), embedded("ui://b", "text/html")],
        Some(json!({"stock": {"on_hand": "3"}})),
    );
    let cases = vec![case("t", lock_result.clone(), check_result.clone(), &[], "")];
    let p = Project::new();
    p.write_json(
        "surface.json",
        &json!({"tools": [scripted("t", json!({}))], "calls": {"t": {"results": [lock_result, check_result]}}}),
    );
    p.stdio_config(&[("fx", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let mut v: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let pin = v["servers"]["fx"]["probes"]["t"].as_object_mut().unwrap();
    assert!(pin.remove("blocks").is_some());
    assert_eq!(pin["content"], json!(["text", "resource_link", "resource"]));
    p.write_json("mcp.lock", &v);
    let (code, report) = p.check_json(&["--fail-on", "loud"]);
    assert_eq!(code, 0, "{report:#}");
    assert_cases(&cases, &report);
    // The next lock pins the new atoms; the check after it compares them.
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let v: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert!(v["servers"]["fx"]["probes"]["t"]["blocks"].is_array(), "{v:#}");
}

#[test]
fn the_fixture_scripts_results_per_call() {
    let p = Project::new();
    let r = |t: &str| json!({"content": [{"type": "text", "text": t}]});
    p.write_json(
        "surface.json",
        &json!({"tools": [scripted("t", json!({}))], "calls": {"t": {"results": [r("one"), r("two")]}}}),
    );
    p.stdio_config(&[("fx", "surface.json")]);
    // Three valid calls (lock, check, check): one, two, two.
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    for _ in 0..2 {
        let (code, _) = p.check_json(&[]);
        assert_eq!(code, 0);
    }
    assert_eq!(p.read("surface.json.calls-t").trim(), "3");
}

// ---- The decided cases of the result contract (RULES.md, the result contract, 8) --------------

/// The case `tool`, whose tool declares `def` (an outputSchema, say).
fn with_def(mut c: Case, def: Value) -> Case {
    c.def = def;
    c
}

fn blob(mime: &str, b64: &str) -> Value {
    json!({"type": "resource", "resource": {"uri": "file:///a.bin", "mimeType": mime, "blob": b64}})
}

/// A bare embedded resource: no `mimeType`.
fn embedded_bare(uri: &str) -> Value {
    json!({"type": "resource", "resource": {"uri": uri, "text": "# doc"}})
}

#[test]
fn decided_cases_of_the_result_contract() {
    let t = || text_block("some text");
    let l = |n: usize| link(&format!("file:///docs/{n}.md"), None);
    // 81 blocks, the image at `at`: one sequence, whatever its length up to 4,096.
    let long = |at: usize| {
        let mut v: Vec<Value> = (0..80).map(l).collect();
        v.insert(at, image(PNG, "image/png"));
        result(v, None)
    };
    let os = json!({"outputSchema": {"type": "object", "properties": {"total": {"type": "integer"}}}});
    let aud = with_audience;
    let cases = vec![
        // Every block is compared: a long result is still one sequence.
        case("long_order", long(41), long(40), &[CHANGED], "block order changed from [resource_link, "),
        case("long_values", long(41), result({ let mut v: Vec<Value> = (0..80).map(|n| link(&format!("file:///other/{n}.txt"), None)).collect(); v.insert(41, image(PNG, "image/png")); v }, None), &[], ""),
        // Over the blocks of a kind when counts differ, each atom is a set of values.
        case("set_scheme_new", result(vec![l(1), l(2)], None), result(vec![l(3), link("https://cdn.example/x", None), l(4)], None), &[CHANGED],
             "resource links of tool set_scheme_new: URI scheme `https:` never seen at lock (pinned: `file:`)"),
        case("set_scheme_gone", result(vec![l(1), link("https://cdn.example/x", None)], None), result(vec![l(3), l(4), l(5)], None), &[REDUCED],
             "resource links of tool set_scheme_gone: URI scheme `https:` does not appear this time"),
        // "Not declared" is no value: a MIME type on some links, where none declared one.
        case("set_mime_appears", result(vec![l(1), l(2)], None),
             result(vec![link("file:///a", Some("text/plain")), l(2), l(3)], None), &[], ""),
        case("set_mime_new", result(vec![link("file:///a", Some("text/plain")), l(2)], None),
             result(vec![link("file:///a", Some("text/html")), l(2), l(3)], None), &[CHANGED, REDUCED],
             "resource links of tool set_mime_new: MIME type `text/html` never seen at lock (pinned: `text/plain`)"),
        case("set_mime_gone", result(vec![link("file:///a", Some("text/plain")), l(2)], None), result(vec![l(1), l(2), l(3)], None), &[REDUCED],
             "MIME type `text/plain` does not appear this time"),
        // The audience atom is the set of per-block effective audiences; `audience: []` is absent.
        case("aud_set_same", result(vec![aud(t(), json!(["user"])), t()], None), result(vec![aud(t(), json!(["user"])), t(), aud(t(), json!(["user"]))], None), &[], ""),
        case("aud_set_new", result(vec![aud(t(), json!(["user"])), t()], None), result(vec![aud(t(), json!(["assistant"])), t(), t()], None), &[CHANGED, REDUCED],
             "text blocks of tool aud_set_new: audience `[assistant]` never seen at lock"),
        case("aud_empty_now", result(vec![t()], None), result(vec![aud(t(), json!([]))], None), &[], ""),
        case("aud_empty_then", result(vec![aud(t(), json!([]))], None), result(vec![t(), t()], None), &[], ""),
        // Embedded resources follow the link rule for an optional mimeType.
        case("emb_mime_appears", result(vec![embedded_bare("file:///a.md")], None), result(vec![embedded("file:///a.md", "text/markdown")], None), &[], ""),
        case("emb_mime_gone", result(vec![embedded("file:///a.md", "text/markdown")], None), result(vec![embedded_bare("file:///a.md")], None), &[REDUCED],
             "embedded resource of tool emb_mime_gone: MIME type `text/markdown` is no longer declared"),
        // MIME types and schemes compare case-insensitively; a quoted profile is the unquoted one.
        case("mime_case", result(vec![embedded("ui://w/app", "text/html;profile=mcp-app")], None),
             result(vec![embedded("UI://w/app", "Text/HTML; charset=utf-8; profile=\"MCP-App\"")], None), &[], ""),
        // structuredContent: appearing is no change; gone under an outputSchema is reported once.
        case("sc_appears_now", result(vec![t()], None), result(vec![t()], Some(json!({"total": 1}))), &[], ""),
        with_def(case("sc_gone_schema", result(vec![t()], Some(json!({"total": 1}))), result(vec![t()], None), &["structured-content-missing"],
             "the tool declares an outputSchema but the result has no structuredContent"), os),
        // Without an outputSchema, an array's element type is the set of its elements' types.
        case("elem_type_new", result(vec![], Some(json!({"v": [1, 2]}))), result(vec![], Some(json!({"v": [3, "x"]}))), &[CHANGED],
             "structuredContent.v[] of tool elem_type_new: string never seen at lock (pinned: integer)"),
        case("elem_type_gone", result(vec![], Some(json!({"v": [1, "x"]}))), result(vec![], Some(json!({"v": [3, 4]}))), &[REDUCED],
             "structuredContent.v[] of tool elem_type_gone: string does not occur this time (now: integer)"),
        case("elem_mixed_same", result(vec![], Some(json!({"v": [1, "x", {"a": 1}]}))), result(vec![], Some(json!({"v": [{"a": 2}, "y", 2.5, "z"]}))), &[], ""),
        case("elem_key_type_new", result(vec![], Some(json!({"v": [{"id": 1}, {"id": 2}]}))), result(vec![], Some(json!({"v": [{"id": 1}, {"id": "b"}]}))), &[CHANGED],
             "structuredContent.v[].id of tool elem_key_type_new: string never seen at lock (pinned: integer)"),
        case("elem_keys_merge", result(vec![], Some(json!({"v": [{"a": 1}, {"b": "x"}]}))), result(vec![], Some(json!({"v": [{"b": "y"}, {"a": 2, "c": true}]}))), &[], ""),
        // A key that was null at lock and is absent now is reduced; the reverse is a new key.
        case("null_then_absent", result(vec![], Some(json!({"a": null, "b": 1}))), result(vec![], Some(json!({"b": 2}))), &[REDUCED],
             "structuredContent.a of tool null_then_absent: pinned key is absent this time (pinned: null)"),
        case("absent_then_null", result(vec![], Some(json!({"b": 1}))), result(vec![], Some(json!({"a": null, "b": 2}))), &[], ""),
        // Text "is JSON" when its whole trimmed text is an object or array; every such block counts.
        case("json_second_block", result(vec![text_block("{\"total\": 3}")], Some(json!({"total": 3}))),
             result(vec![text_block("{\"total\": 3}"), text_block("[{\"total\": 9}]")], Some(json!({"total": 3}))), &["text-structure-conflict"], "differs from structuredContent"),
        case("json_scalar_text", result(vec![text_block("{\"total\": 3}")], Some(json!({"total": 3}))), result(vec![text_block("4")], Some(json!({"total": 3}))), &[], ""),
        case("json_fenced_text", result(vec![text_block("{\"total\": 3}")], Some(json!({"total": 3}))),
             result(vec![text_block("```json\n{\"total\": 5}\n```")], Some(json!({"total": 3}))), &[], ""),
        // isError other than the boolean true is no error.
        case("is_error_string", result(vec![t()], None), json!({"content": [t()], "isError": "true"}), &[], ""),
        case("is_error_number", result(vec![t()], None), json!({"content": [t()], "isError": 1}), &[], ""),
        // A blob declared JSON must decode and parse; magic numbers only where a type has one.
        case("json_blob_ok", result(vec![blob("application/json", "eyJhIjoxfQ==")], None), result(vec![blob("application/vnd.x+json", "eyJhIjoyfQ==")], None), &[CHANGED],
             "MIME type changed from `application/json` to `application/vnd.x+json`"),
        case("json_blob_valid", result(vec![blob("application/json", "eyJhIjoxfQ==")], None), result(vec![blob("application/json; charset=utf-8", "WzEsIDIsIDNd")], None), &[], ""),
        case("json_blob_bad", result(vec![blob("application/json", "eyJhIjoxfQ==")], None), result(vec![blob("application/json", "e29vcHM=")], None),
             &["result-payload-invalid"], "embedded resource of tool json_blob_bad: declares `application/json` but its bytes are not JSON"),
        case("svg_no_magic", result(vec![image("PHN2Zy8+", "image/svg+xml")], None), result(vec![image("PHN2ZyB2aWV3Qm94PSIwIDAgMSAxIi8+", "image/svg+xml")], None), &[], ""),
        case("octet_no_magic", result(vec![blob("application/octet-stream", "AAEC")], None), result(vec![blob("application/octet-stream", "/9j/")], None), &[], ""),
        case("gif_wrong_magic", result(vec![image("R0lGODlhAQABAAAAACw=", "image/gif")], None), result(vec![image(PNG, "image/gif")], None), &["result-payload-invalid"],
             "image block of tool gif_wrong_magic: declares `image/gif` but its bytes do not start with that type's magic number"),
        // A block type outside the six kinds is a kind of its own (and reaches mcp-pin raw).
        case("unknown_same", result(vec![t(), json!({"type": "x-widget", "payload": {"n": 1}})], None), result(vec![t(), json!({"type": "x-widget", "payload": {"n": 2}})], None), &[], ""),
        case("unknown_swapped", result(vec![t(), json!({"type": "x-widget", "payload": 1})], None), result(vec![t(), json!({"type": "x-chart", "payload": 1})], None), &[CHANGED, REDUCED],
             "`x-chart` block never seen at lock"),
    ];
    let (p, code, report) = run_cases(&cases);
    assert_eq!(code, 1, "{report:#}");
    assert_cases(&cases, &report);
    // The pin is atoms in runs, never values.
    let v: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let pin = &v["servers"]["fx"]["probes"]["long_order"];
    assert_eq!(pin["contractVersion"], 2);
    assert_eq!(
        pin["blocks"],
        json!([{"kind": "resource_link", "scheme": "file:", "repeat": 41}, {"kind": "image", "mimeType": "image/png"}, {"kind": "resource_link", "scheme": "file:", "repeat": 39}])
    );
    assert_eq!(
        v["servers"]["fx"]["probes"]["elem_mixed_same"]["structuredContent"],
        json!({"v": ["integer", {"a": "integer"}, "string"]})
    );
}

#[test]
fn past_4096_blocks_only_first_appearance_is_compared_and_the_probe_line_says_so() {
    let l = |n: usize| link(&format!("file:///docs/{n}.md"), None);
    let big = |image_at: usize, extra: Option<Value>| {
        let mut v: Vec<Value> = (0..5000).map(l).collect();
        v.insert(image_at, image(PNG, "image/png"));
        v.extend(extra);
        result(v, None)
    };
    let cases = vec![
        case("moved_past_cap", big(4500, None), big(4700, None), &[], ""),
        case("new_kind_past_cap", big(4500, None), big(4500, Some(text_block("truncated"))), &[CHANGED],
             "text block never seen at lock (pinned kinds: [resource_link, image]) (more than 4,096 blocks: content compared by first appearance only)"),
    ];
    let (p, code, report) = run_cases(&cases);
    assert_eq!(code, 1, "{report:#}");
    assert_cases(&cases, &report);
    let pass =
        report["servers"][0]["probes"].as_array().unwrap().iter().find(|p| p["tool"] == "moved_past_cap").unwrap();
    let msg = pass["message"].as_str().unwrap();
    assert!(msg.contains("more than 4,096 blocks: content compared by first appearance only"), "{msg}");
    // The lock holds runs, the first appearance past the cap, and the mark.
    let v: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let pin = &v["servers"]["fx"]["probes"]["moved_past_cap"];
    assert_eq!(pin["blocksTruncated"], true);
    assert_eq!(
        pin["blocks"],
        json!([{"kind": "resource_link", "scheme": "file:", "repeat": 4096}, {"kind": "image", "mimeType": "image/png"}])
    );
}

#[test]
fn the_incomplete_call_leaves_out_the_first_required_argument_in_required_order() {
    let p = Project::new();
    let tool = |name: &str, required: Value| {
        json!({"name": name, "description": "Reads.", "annotations": {"readOnlyHint": true},
               "inputSchema": {"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}, "confirm": {"type": "boolean"}}, "required": required}})
    };
    p.write_json(
        "surface.json",
        &json!({"tools": [tool("ordered", json!(["zeta", "alpha"])), tool("flag_first", json!(["confirm", "alpha", "zeta"]))]}),
    );
    p.stdio_config(&[("fx", "surface.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let incomplete = |tool: &str| -> String {
        let ps = report["servers"][0]["probes"].as_array().unwrap();
        let p = ps.iter().find(|p| p["tool"] == tool && p["kind"] == "incomplete").unwrap();
        p["message"].as_str().unwrap().to_string()
    };
    assert!(incomplete("ordered").contains("without `zeta`"), "{}", incomplete("ordered"));
    assert!(incomplete("flag_first").contains("without `alpha`"), "{}", incomplete("flag_first"));
}

/// `tests/fixtures/result-contract-v1/mcp.lock` was written by the release before the decided
/// cases (blocks capped at 64, `audience: []` kept, `mixed` element types, one agreeing JSON
/// block taken for agreement) from `surface.json` there, whose tools answer the lock's result,
/// then the check's (values changed, the 81-block result's image moved by one place), then the
/// same two again.
#[test]
fn a_lock_of_the_previous_release_does_not_fail_the_first_check_after_the_upgrade() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/result-contract-v1");
    let p = Project::new();
    std::fs::copy(format!("{dir}/surface.json"), p.path("surface.json")).unwrap();
    std::fs::copy(format!("{dir}/mcp.lock"), p.path("mcp.lock")).unwrap();
    p.stdio_config(&[("upgrade", "surface.json")]);
    let surface: Value = serde_json::from_str(&p.read("surface.json")).unwrap();
    let tools: Vec<String> =
        surface["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    // The old release's lock took each tool's first result.
    for t in &tools {
        p.write(&format!("surface.json.calls-{t}"), "1");
    }
    let (code, report) = p.check_json(&["--fail-on", "loud"]);
    assert_eq!(code, 0, "{report:#}");
    let probes = report["servers"][0]["probes"].as_array().unwrap();
    assert_eq!(probes.len(), tools.len(), "{report:#}");
    assert!(probes.iter().all(|p| p["outcome"] == "pass"), "{report:#}");
    assert!(report["servers"][0]["changes"].as_array().unwrap().is_empty(), "{report:#}");
    let many = probes.iter().find(|p| p["tool"] == "many_blocks").unwrap()["message"].as_str().unwrap();
    assert!(many.contains("the lock holds the first 64 blocks (an earlier mcp-pin's cap)"), "{many}");
    // The next lock pins the whole contract; the check after it compares every block.
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    let v: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let pin = &v["servers"]["upgrade"]["probes"]["many_blocks"];
    assert_eq!(pin["contractVersion"], 2);
    assert!(pin.get("blocksTruncated").is_none(), "{pin:#}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    let fails: Vec<(String, String)> = report["servers"][0]["probes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["outcome"] == "fail")
        .map(|p| (p["tool"].as_str().unwrap().to_string(), p["rule"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(fails, vec![("many_blocks".to_string(), CHANGED.to_string())], "{report:#}");
}
