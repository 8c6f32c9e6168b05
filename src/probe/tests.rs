//! Unit tests: planning (policy, fixtures, task support) and judging raw outcomes.

use super::*;
use crate::config::{Stdio, ToolConfig, Transport};
use serde_json::json;

fn server(probe: ProbePolicy) -> ServerConfig {
    ServerConfig {
        name: "srv".into(),
        transport: Transport::Stdio(Stdio {
            command: "true".into(),
            command_template: "true".into(),
            args: vec![],
            args_template: vec![],
            env: BTreeMap::from([("TOKEN".to_string(), "s3cr3t-token".to_string())]),
            cwd: None,
            cwd_template: None,
            launch: Default::default(),
            inherit_env: Default::default(),
        }),
        timeout: Duration::from_secs(2),
        max_tools: crate::config::DEFAULT_MAX_TOOLS,
        max_listing_bytes: crate::config::DEFAULT_MAX_LISTING_BYTES,
        client: Default::default(),
        client_capabilities: vec![],
        client_capabilities_set: false,
        client_set: false,
        probe,
        tools: BTreeMap::new(),
    }
}

fn tool(read_only: bool, schema: Value) -> Value {
    json!({"name": "t", "inputSchema": schema, "annotations": {"readOnlyHint": read_only}})
}

const T: Duration = Duration::from_secs(2);

#[test]
fn read_only_policy_skips_unannotated_tools_with_the_enabling_line() {
    let s = server(ProbePolicy::ReadOnly);
    let p = plan(&s, "write-it", &tool(false, json!({"type": "object"})));
    match p {
        Plan::Skip { message, .. } => {
            assert!(message.contains("[servers.srv.tools.write-it] probe = \"all\""), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(plan(&s, "t", &tool(true, json!({"type": "object"}))), Plan::Call { .. }));
}

#[test]
fn the_default_policy_calls_writers_in_the_sandbox_and_readers_in_the_session() {
    let s = server(ProbePolicy::default());
    assert_eq!(s.probe, ProbePolicy::Sandbox);
    let at = |s: &ServerConfig, def: &Value| place::of(s, "t", def, &plan(s, "t", def));
    let writer = tool(false, json!({"type": "object"}));
    let reader = tool(true, json!({"type": "object"}));
    // readOnlyHint with destructiveHint contradicts itself: the dangerous reading wins.
    let both = json!({"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true, "destructiveHint": true}});
    let unannotated = json!({"name": "t", "inputSchema": {"type": "object"}});
    assert_eq!(at(&s, &reader), Place::Session);
    for def in [&writer, &both, &unannotated] {
        assert!(matches!(plan(&s, "t", def), Plan::Call { .. }), "{def}");
        assert_eq!(at(&s, def), Place::Sandbox, "{def}");
    }
    // A fixture does not move a writer out of the sandbox.
    let mut f = server(ProbePolicy::Sandbox);
    f.tools.insert("t".into(), ToolConfig { args: Some(json!({})), probe: None });
    assert_eq!(at(&f, &writer), Place::Sandbox);
    // `all` is the user's word: every tool in the server's own session; `read-only` never
    // sandboxes (its writers are skipped in `plan`); a skipped tool needs no session at all.
    assert_eq!(at(&server(ProbePolicy::All), &writer), Place::Session);
    let mut per_tool = server(ProbePolicy::Sandbox);
    per_tool.tools.insert("t".into(), ToolConfig { args: None, probe: Some(ProbePolicy::All) });
    assert_eq!(at(&per_tool, &writer), Place::Session);
    assert!(matches!(plan(&server(ProbePolicy::ReadOnly), "t", &writer), Plan::Skip { .. }));
    assert_eq!(at(&server(ProbePolicy::None), &writer), Place::Session);
}

#[test]
fn a_fixture_enables_a_tool_under_read_only() {
    let mut s = server(ProbePolicy::ReadOnly);
    s.tools.insert("w".into(), ToolConfig { args: Some(json!({"x": 1})), probe: None });
    match plan(&s, "w", &tool(false, json!({"type": "object", "required": ["x"]}))) {
        Plan::Call { args, incomplete, .. } => {
            assert_eq!(Value::Object(args), json!({"x": 1}));
            assert_eq!(incomplete.unwrap().left_out, "x");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tool_policy_overrides_server_policy() {
    let mut s = server(ProbePolicy::All);
    s.tools.insert("get-env".into(), ToolConfig { args: None, probe: Some(ProbePolicy::None) });
    assert!(matches!(plan(&s, "get-env", &tool(true, json!({}))), Plan::Skip { .. }));
    assert!(matches!(plan(&s, "other", &tool(false, json!({"type": "object"}))), Plan::Call { .. }));
    let mut s = server(ProbePolicy::None);
    s.tools.insert("x".into(), ToolConfig { args: None, probe: Some(ProbePolicy::All) });
    assert!(matches!(plan(&s, "x", &tool(false, json!({"type": "object"}))), Plan::Call { .. }));
}

#[test]
fn task_required_tools_are_skipped() {
    let s = server(ProbePolicy::All);
    let mut d = tool(true, json!({"type": "object"}));
    d["execution"] = json!({"taskSupport": "required"});
    match plan(&s, "t", &d) {
        Plan::Skip { message, .. } => assert!(message.contains("task"), "{message}"),
        other => panic!("{other:?}"),
    }
    let (p, _) = judge_call(
        "t",
        &d,
        &Ok(CallOutcome::RpcError { code: -32601, message: "Tool t requires task augmentation".into() }),
        None,
        T,
        &[],
    );
    assert_eq!(p[0].outcome, ProbeOutcome::Skipped);
}

#[test]
fn unsynthesisable_args_skip_with_a_fixture_hint() {
    let s = server(ProbePolicy::All);
    let schema = json!({"type": "object", "required": ["q", "when"], "properties": {"q": {"type": "string"}, "when": {"$ref": "https://example.invalid/x.json"}}});
    match plan(&s, "search.v2", &tool(true, schema)) {
        Plan::Skip { message, .. } => {
            assert!(message.contains("[servers.srv.tools.\"search.v2\"] args = { q = ..., when = ... }"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn incomplete_leaves_out_the_first_required_argument_in_required_order() {
    let s = server(ProbePolicy::All);
    let schema = json!({"type": "object", "required": ["zeta", "alpha"], "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}}});
    match plan(&s, "t", &tool(true, schema)) {
        Plan::Call { args, incomplete, .. } => {
            assert_eq!(Value::Object(args), json!({"alpha": 0, "zeta": ""}));
            // RULES: the first in `required` order (as the schema lists them), not by name.
            let inc = incomplete.unwrap();
            assert_eq!(inc.left_out, "zeta");
            assert_eq!(Value::Object(inc.args), json!({"alpha": 0}));
        }
        other => panic!("{other:?}"),
    }
    // No required argument: no incomplete call.
    match plan(&s, "t", &tool(true, json!({"type": "object", "properties": {"a": {"type": "string"}}}))) {
        Plan::Call { incomplete, args, .. } => {
            assert!(incomplete.is_none());
            assert!(args.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

fn ok(result: Value) -> Result<CallOutcome, ClientError> {
    Ok(CallOutcome::Result(result))
}

fn rules(p: &[Probe]) -> Vec<Option<RuleId>> {
    p.iter().map(|p| p.rule).collect()
}

#[test]
fn valid_call_passes_with_a_summary_and_no_values() {
    let d = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}});
    let r = json!({"content": [{"type": "text", "text": "{\"n\": 41}"}, {"type": "text", "text": "VALUE"}], "structuredContent": {"n": 41}});
    let (p, s) = judge_call("t", &d, &ok(r), None, T, &[]);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].outcome, ProbeOutcome::Pass);
    assert_eq!(p[0].message, "ok (structured, 2 text blocks)");
    let s = s.unwrap();
    assert_eq!(s["textStructure"], "equivalent-json");
    assert!(!s.to_string().contains("41"));
}

#[test]
fn call_failed_on_rpc_error_and_is_error_with_excerpt_and_secrets_masked() {
    let d = json!({"name": "t", "inputSchema": {"type": "object"}});
    let secrets = vec!["s3cr3t-token".to_string()];
    let (p, s) = judge_call(
        "t",
        &d,
        &Ok(CallOutcome::RpcError { code: -32603, message: "boom s3cr3t-token".into() }),
        None,
        T,
        &secrets,
    );
    assert_eq!(rules(&p), vec![Some(CALL_FAILED)]);
    assert_eq!(p[0].message, "JSON-RPC error -32603: boom [redacted]");
    // The failing outcome is pinned (never the message).
    assert_eq!(s, Some(json!({"rpcError": -32603})));
    let long = "x".repeat(1000);
    let (p, s) = judge_call(
        "t",
        &d,
        &ok(json!({"isError": true, "content": [{"type": "text", "text": long}]})),
        None,
        T,
        &secrets,
    );
    assert_eq!(rules(&p), vec![Some(CALL_FAILED)]);
    assert!(p[0].message.chars().count() < 260, "{}", p[0].message);
    assert_eq!(s.unwrap()["isError"], true);
}

#[test]
fn timeout_is_call_timeout() {
    let d = json!({"name": "t", "inputSchema": {"type": "object"}});
    let (p, pin) = judge_call("t", &d, &Ok(CallOutcome::Timeout), None, T, &[]);
    assert_eq!(rules(&p), vec![Some(CALL_TIMEOUT)]);
    assert!(p[0].message.contains("2s"), "{}", p[0].message);
    // Pinned as probed (check judges it), with nothing to compare.
    let pin = pin.unwrap();
    assert!(shape::timed_out(&pin) && shape::pinned_failure(&pin));
    // A hang at check is judged even when the call hung at lock too: a timeout is never excused.
    let (p, _) = judge("t", &ctx(&d, Some(&pin), Mode::Check, Some(LINE)), &Ok(CallOutcome::Timeout));
    assert_eq!(rules(&p), vec![Some(CALL_TIMEOUT)]);
}

#[test]
fn structured_content_missing_and_invalid() {
    let d = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}});
    let (p, _) = judge_call("t", &d, &ok(json!({"content": [{"type": "text", "text": "hi"}]})), None, T, &[]);
    assert_eq!(rules(&p), vec![Some(STRUCTURED_CONTENT_MISSING)]);
    let (p, _) = judge_call("t", &d, &ok(json!({"content": [], "structuredContent": {"n": "SECRET"}})), None, T, &[]);
    assert_eq!(rules(&p), vec![Some(STRUCTURED_CONTENT_INVALID)]);
    assert!(p[0].message.contains("/n") && !p[0].message.contains("SECRET"), "{}", p[0].message);
}

#[test]
fn output_schema_dialect_is_respected() {
    // draft-07 array-form `items` is a tuple; in 2020-12 it would be an error to compile or
    // read differently.
    let d = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}}});
    let (p, _) =
        judge_call("t", &d, &ok(json!({"content": [], "structuredContent": {"pair": ["a", 1]}})), None, T, &[]);
    assert_eq!(p[0].outcome, ProbeOutcome::Pass, "{:?}", p);
    let (p, _) =
        judge_call("t", &d, &ok(json!({"content": [], "structuredContent": {"pair": [1, "a"]}})), None, T, &[]);
    assert_eq!(rules(&p), vec![Some(STRUCTURED_CONTENT_INVALID)]);
}

#[test]
fn conflicting_text_is_text_structure_conflict() {
    let d = json!({"name": "t", "inputSchema": {"type": "object"}});
    let r = json!({"content": [{"type": "text", "text": "{\"n\": 2}"}], "structuredContent": {"n": 1}});
    let (p, s) = judge_call("t", &d, &ok(r), None, T, &[]);
    assert_eq!(rules(&p), vec![Some(TEXT_STRUCTURE_CONFLICT)]);
    assert_eq!(s.unwrap()["textStructure"], "conflicting-json");
}

#[test]
fn shape_change_is_reported_against_the_pin() {
    let d = json!({"name": "t", "inputSchema": {"type": "object"}});
    let pinned = json!({"content": ["text"], "structuredContent": {"n": "integer"}, "textStructure": "equivalent-json", "isError": false});
    let (p, _) = judge_call("t", &d, &ok(json!({"content": [{"type": "text", "text": "n=1"}]})), Some(&pinned), T, &[]);
    assert_eq!(rules(&p), vec![Some(RESULT_SHAPE_CHANGED)]);
    assert_eq!(p[0].message, "structuredContent of tool t: present at lock (object), absent now");
    // Same shape with other values: pass.
    let (p, _) = judge_call(
        "t",
        &d,
        &ok(json!({"content": [{"type": "text", "text": "{\"n\":7}"}], "structuredContent": {"n": 7}})),
        Some(&pinned),
        T,
        &[],
    );
    assert_eq!(p[0].outcome, ProbeOutcome::Pass);
}

#[test]
fn incomplete_call_judgement() {
    let inc = |o: &Result<CallOutcome, ClientError>, valid_ok: bool| judge_incomplete("t", "path", o, valid_ok, T, &[]);
    let rpc = |code: i64, m: &str| Ok(CallOutcome::RpcError { code, message: m.into() });
    let err = |t: &str| ok(json!({"isError": true, "content": [{"type": "text", "text": t}]}));
    // Invalid params is the missing argument's rejection, whatever else happened.
    let r = inc(&rpc(-32602, "x"), false);
    assert_eq!((r.outcome, r.kind), (ProbeOutcome::Pass, ProbeKind::Incomplete));
    // An error naming the argument: rejected for it.
    for text in ["Required: path", "1 validation error\nPATH\n  Field required", "missing `path`"] {
        assert_eq!(inc(&err(text), false).outcome, ProbeOutcome::Pass, "{text}");
    }
    assert_eq!(inc(&rpc(-32603, "path is required"), false).outcome, ProbeOutcome::Pass);
    // Any error after a valid call that succeeded in the same session.
    assert_eq!(inc(&err("something broke"), true).outcome, ProbeOutcome::Pass);
    assert_eq!(inc(&ok(json!({"isError": true, "content": []})), true).outcome, ProbeOutcome::Pass);
    // Otherwise: a tool that fails every call proves nothing by failing this one.
    let r = inc(&err("EISDIR: illegal operation"), false);
    assert_eq!(r.outcome, ProbeOutcome::Skipped, "{r:?}");
    assert!(r.message.contains("proves nothing"), "{}", r.message);
    assert_eq!(
        inc(&err("the filepath is odd"), false).outcome,
        ProbeOutcome::Skipped,
        "a word containing it is not it"
    );
    assert_eq!(inc(&rpc(-32603, "internal error"), false).outcome, ProbeOutcome::Skipped);
    // Accepted: always a failure, and a timeout is one too.
    let r = inc(&ok(json!({"content": [{"type": "text", "text": "fine"}]})), false);
    assert_eq!(r.rule, Some(INCOMPLETE_CALL_ACCEPTED));
    assert!(r.message.contains("`path`"));
    assert_eq!(inc(&Ok(CallOutcome::Timeout), true).rule, Some(CALL_TIMEOUT));
}

#[test]
fn an_error_names_an_argument_as_a_word_or_spelled_with_spaces() {
    assert!(names_argument("Invalid arguments: repo_path: Field required", "repo_path"));
    assert!(names_argument("missing repo path", "repo_path"));
    assert!(names_argument("\"timeZone\" is required", "timezone"));
    assert!(!names_argument("no such file", "path"));
    assert!(!names_argument("filepath wrong", "path"));
    assert!(!names_argument("anything", ""));
}

#[test]
fn toml_keys() {
    assert_eq!(toml_key("get-env"), "get-env");
    assert_eq!(toml_key("a.b"), "\"a.b\"");
    assert_eq!(toml_key("say \"hi\""), "\"say \\\"hi\\\"\"");
}

#[test]
fn output_formats_are_annotations_in_every_draft() {
    for dialect in [json!("http://json-schema.org/draft-07/schema#"), Value::Null] {
        let mut os = json!({"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}});
        if !dialect.is_null() {
            os["$schema"] = dialect;
        }
        let d = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": os});
        let (p, _) =
            judge_call("t", &d, &ok(json!({"content": [], "structuredContent": {"at": "yesterday"}})), None, T, &[]);
        assert_eq!(p[0].outcome, ProbeOutcome::Pass, "{p:?}");
    }
}

#[test]
fn incomplete_call_keeps_every_other_argument_and_never_drops_a_flag() {
    let mut server = server(ProbePolicy::All);
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}, "dryRun": {"type": "boolean"}},
                        "required": ["dryRun", "path"]});
    let fixture = json!({"path": "/tmp/x", "dryRun": true, "note": "kept"});
    server.tools.insert("delete".into(), ToolConfig { args: Some(fixture), probe: Some(ProbePolicy::All) });
    match plan(&server, "delete", &json!({"name": "delete", "inputSchema": schema})) {
        Plan::Call { incomplete: Some(inc), .. } => {
            assert_eq!(inc.left_out, "path");
            assert_eq!(Value::Object(inc.args), json!({"dryRun": true, "note": "kept"}));
        }
        other => panic!("{other:?}"),
    }
    // Every required argument is a flag: no incomplete call at all.
    let only_flags = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]});
    match plan(&server, "delete", &json!({"name": "delete", "inputSchema": only_flags})) {
        Plan::Call { incomplete, .. } => assert!(incomplete.is_none()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn read_only_and_destructive_is_not_read_only() {
    assert!(read_only(&json!({"annotations": {"readOnlyHint": true}})));
    assert!(!read_only(&json!({"annotations": {"readOnlyHint": true, "destructiveHint": true}})));
    assert!(!read_only(&json!({"annotations": {}})));
}

#[test]
fn invalid_header_mappings_are_never_called() {
    let t = |props: Value| json!({"name": "t", "inputSchema": {"type": "object", "properties": props}});
    assert_eq!(header_mapping_problem(&t(json!({"r": {"type": "string", "x-mcp-header": "Region"}}))), None);
    assert_eq!(header_mapping_problem(&t(json!({"r": {"type": "integer", "x-mcp-header": "X-Count"}}))), None);
    for bad in [
        json!({"v": {"type": "string", "x-mcp-header": ""}}),
        json!({"v": {"type": "object", "x-mcp-header": "Data"}}),
        json!({"v": {"type": "array", "x-mcp-header": "Items"}}),
        json!({"v": {"type": "null", "x-mcp-header": "Nil"}}),
        json!({"v": {"type": "number", "x-mcp-header": "Score"}}),
        json!({"a": {"type": "string", "x-mcp-header": "MyField"}, "b": {"type": "string", "x-mcp-header": "myfield"}}),
        json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
        json!({"v": {"type": "string", "x-mcp-header": "Region:Primary"}}),
        json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
        json!({"v": {"type": "string", "x-mcp-header": "Region\t1"}}),
    ] {
        let def = t(bad.clone());
        assert!(header_mapping_problem(&def).is_some(), "{bad}");
        match plan(&server(ProbePolicy::All), "t", &def) {
            Plan::Skip { message, .. } => assert!(message.contains("x-mcp-header"), "{message}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

fn ctx<'a>(def: &'a Value, pinned: Option<&'a Value>, mode: Mode, synthesised: Option<&'a str>) -> Context<'a> {
    Context { def, pinned, mode, synthesised, timeout: T, secrets: &[], tried: 3 }
}

const LINE: &str = "[servers.fs.tools.read_file] args = { path = ... }";

#[test]
fn a_call_that_failed_at_lock_with_synthesised_arguments_is_not_drift() {
    let d = json!({"name": "read_file", "inputSchema": {"type": "object", "required": ["path"]}});
    let eisdir =
        ok(json!({"isError": true, "content": [{"type": "text", "text": "EISDIR: illegal operation on a directory"}]}));
    // At lock: a call-failed warning that says why and gives the fixture line; the failure is pinned.
    let (p, pin) = judge("read_file", &ctx(&d, None, Mode::Lock, Some(LINE)), &eisdir);
    assert_eq!(rules(&p), vec![Some(CALL_FAILED)]);
    assert!(p[0].message.contains("no arguments mcp-pin tried made the call succeed (3 tried)"), "{}", p[0].message);
    assert!(p[0].message.contains(LINE), "{}", p[0].message);
    let pin = pin.unwrap();
    assert_eq!(pin["isError"], true);
    // At check, failing the same way: skipped, not gated, with the line.
    let (p, _) = judge("read_file", &ctx(&d, Some(&pin), Mode::Check, Some(LINE)), &eisdir);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].outcome, ProbeOutcome::Skipped, "{p:?}");
    assert!(p[0].message.contains(LINE) && p[0].message.contains("EISDIR"), "{}", p[0].message);
    // A JSON-RPC error at lock and at check: the same.
    let rpc = Ok(CallOutcome::RpcError { code: -32602, message: "bad path".into() });
    let (_, rpin) = judge("read_file", &ctx(&d, None, Mode::Lock, Some(LINE)), &rpc);
    let (p, _) = judge("read_file", &ctx(&d, rpin.as_ref(), Mode::Check, Some(LINE)), &rpc);
    assert_eq!(p[0].outcome, ProbeOutcome::Skipped, "{p:?}");
    // The user's own fixture: gated.
    let (p, _) = judge("read_file", &ctx(&d, Some(&pin), Mode::Check, None), &eisdir);
    assert_eq!(rules(&p), vec![Some(CALL_FAILED)]);
    // It succeeded at lock: gated.
    let good = json!({"content": [{"type": "text", "text": "x"}], "isError": false});
    let (_, good_pin) = judge("read_file", &ctx(&d, None, Mode::Lock, Some(LINE)), &ok(good.clone()));
    let (p, _) = judge("read_file", &ctx(&d, good_pin.as_ref(), Mode::Check, Some(LINE)), &eisdir);
    assert_eq!(rules(&p), vec![Some(CALL_FAILED)]);
    // Nothing pinned, judged anyway (the judgement alone; `search::probe_tool` skips such a tool
    // at check before calling it: judged from the next lock on).
    let (p, _) = judge("read_file", &ctx(&d, None, Mode::Check, Some(LINE)), &eisdir);
    assert_eq!(rules(&p), vec![Some(CALL_FAILED)]);
    // Failed at lock, succeeds now: a pass that says to pin it.
    let (p, _) = judge("read_file", &ctx(&d, Some(&pin), Mode::Check, Some(LINE)), &ok(good));
    assert_eq!(p[0].outcome, ProbeOutcome::Pass);
    assert!(p[0].message.contains("failed at lock"), "{}", p[0].message);
}

#[test]
fn text_structure_conflict_only_when_new_since_lock() {
    let d = json!({"name": "t", "inputSchema": {"type": "object"}});
    let agree = json!({"content": [{"type": "text", "text": "{\"n\": 1.0}"}], "structuredContent": {"n": 1}});
    let conflict = json!({"content": [{"type": "text", "text": "{\"n\": 2}"}], "structuredContent": {"n": 1}});
    let text_only = json!({"content": [{"type": "text", "text": "{\"n\": 2}"}]});
    let (p, agree_pin) = judge("t", &ctx(&d, None, Mode::Lock, None), &ok(agree.clone()));
    assert_eq!(p[0].outcome, ProbeOutcome::Pass, "4.0 agrees with 4: {p:?}");
    let (p, conflict_pin) = judge("t", &ctx(&d, None, Mode::Lock, None), &ok(conflict.clone()));
    assert_eq!(rules(&p), vec![Some(TEXT_STRUCTURE_CONFLICT)]);
    let (_, text_pin) = judge("t", &ctx(&d, None, Mode::Lock, None), &ok(text_only));
    for (pin, fires) in [(&agree_pin, true), (&text_pin, true), (&conflict_pin, false)] {
        let (p, _) = judge("t", &ctx(&d, pin.as_ref(), Mode::Check, None), &ok(conflict.clone()));
        assert_eq!(p.iter().any(|p| p.rule == Some(TEXT_STRUCTURE_CONFLICT)), fires, "{pin:?}: {p:?}");
    }
    assert_eq!(crate::rules::lookup(TEXT_STRUCTURE_CONFLICT).unwrap().class, crate::rules::Class::Silent);
    assert_eq!(crate::rules::lookup(RESULT_SHAPE_REDUCED).unwrap().class, crate::rules::Class::Loud);
    assert_eq!(crate::rules::lookup(RESULT_PAYLOAD_INVALID).unwrap().class, crate::rules::Class::Silent);
}

#[test]
fn summary_line_counts_probed_skipped_and_passed() {
    let mut run = ProbeRun::default();
    let p = |tool: &str, kind, outcome, message: &str| {
        let mut p = Probe::new(tool, kind, outcome, None, message.into());
        // The reason a skip carries as data (the message's words are never read back).
        if outcome == ProbeOutcome::Skipped {
            p.reason = Some(if message.contains("probe = \"none\"") {
                SkipReason::ProbeNone
            } else if message.starts_with(place::NO_SANDBOX) {
                SkipReason::NoSandbox
            } else {
                SkipReason::NotReadOnly
            });
        }
        p
    };
    run.probes = vec![
        p("a", ProbeKind::Call, ProbeOutcome::Pass, "ok"),
        p("b", ProbeKind::Call, ProbeOutcome::Fail, "x"),
        p("c", ProbeKind::Call, ProbeOutcome::Skipped, "not probed: not annotated read-only (readOnlyHint); ..."),
        p("d", ProbeKind::Call, ProbeOutcome::Skipped, "not probed: probe = \"none\""),
        p("e", ProbeKind::Call, ProbeOutcome::Skipped, "not probed: not annotated read-only (readOnlyHint); ..."),
    ];
    // Probes without places (a report from an older mcp-pin) say nothing about places.
    assert_eq!(
        run.summary(),
        "5 tools: 2 probed, 1 passed, 1 failed; 3 skipped (2 not annotated read-only, 1 probe = \"none\")"
    );
    // Where the valid calls were made, and a tool skipped for want of a sandbox.
    run.probes[0].place = Some(Place::Session);
    run.probes[1].place = Some(Place::Sandbox);
    run.probes.push(Probe { place: Some(Place::Sandbox), ..p("b", ProbeKind::Incomplete, ProbeOutcome::Pass, "ok") });
    let none = place::no_sandbox_skip(&server(ProbePolicy::Sandbox), "f");
    run.probes.push(p("f", ProbeKind::Call, ProbeOutcome::Skipped, &none));
    assert_eq!(
        run.summary(),
        "6 tools: 2 probed (1 in the session, 1 in the sandbox), 1 passed, 1 failed; 4 skipped (1 no sandbox, 2 not annotated read-only, 1 probe = \"none\")"
    );
    // The reason is the probe's data: another message with the same reason counts the same.
    run.probes.push(Probe::skipped("g", ProbeKind::Call, SkipReason::NoSandbox, "reworded".into()));
    assert!(
        run.summary().ends_with("5 skipped (2 no sandbox, 2 not annotated read-only, 1 probe = \"none\")"),
        "{}",
        run.summary()
    );
}

/// `result-payload-invalid` against a pin made before mcp-pin judged payloads (no `blocks`
/// atom): nothing fails on the first check after an upgrade; a pin that has the atoms, or no
/// pin at all, is judged.
#[test]
fn payload_is_not_judged_against_a_pin_from_before_payloads_were_judged() {
    let d = json!({"name": "t", "inputSchema": {"type": "object"}});
    let bad = json!({"content": [{"type": "resource", "resource": {"uri": "file:///a.json", "mimeType": "application/json", "text": "{oops"}}]});
    // The pin of this very result, as this release writes it and as an older one did.
    let new_pin = shape::shape(&bad, true);
    let mut old_pin = new_pin.clone();
    old_pin.as_object_mut().unwrap().remove("blocks");
    let (p, _) = judge_call("t", &d, &ok(bad.clone()), Some(&old_pin), T, &[]);
    assert_eq!(p[0].outcome, ProbeOutcome::Pass, "{p:?}");
    assert!(p[0].message.contains("run `mcp-pin lock`"), "{}", p[0].message);
    let (p, _) = judge_call("t", &d, &ok(bad.clone()), Some(&new_pin), T, &[]);
    assert!(rules(&p).contains(&Some(RESULT_PAYLOAD_INVALID)), "{p:?}");
    let (p, _) = judge_call("t", &d, &ok(bad), None, T, &[]);
    assert_eq!(rules(&p), vec![Some(RESULT_PAYLOAD_INVALID)]);
}
