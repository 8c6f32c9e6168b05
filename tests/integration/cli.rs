//! End to end: the real `mcp-pin` binary against the real fixture MCP server (rmcp server side)
//! over stdio and Streamable HTTP.

use crate::common;

use common::*;
use serde_json::{json, Value};

fn surface() -> Value {
    json!({
        "serverInfo": {"name": "fixture", "version": "1.0.0"},
        "instructions": "Use search before fetch.",
        "tools": [
            {
                "name": "search",
                "description": "Search the catalogue.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                        "status": {"type": "string", "enum": ["open", "closed", "all"]}
                    },
                    "required": ["query", "status"]
                },
                "annotations": {"readOnlyHint": true},
                "execution": {"taskSupport": "forbidden"},
                "x-vendor": {"rank": 1e3}
            },
            {
                "name": "fetch",
                "description": "Fetch one record by id.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}},
                    "required": ["id"]
                }
            }
        ]
    })
}

fn project() -> Project {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.stdio_config(&[("cat", "surface.json")]);
    p
}

#[test]
fn lock_is_exact_and_deterministic_and_check_passes_unchanged() {
    let p = project();
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let first = p.read("mcp.lock");
    // Unknown fields are kept raw.
    assert!(first.contains("\"x-vendor\""), "{first}");
    assert!(first.contains("\"taskSupport\": \"forbidden\""));
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(p.read("mcp.lock"), first, "locking an unchanged server twice must be byte-identical");
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["verdict"], "pass");
    assert_eq!(report["servers"][0]["name"], "cat");
    assert_eq!(report["servers"][0]["status"], "ok");
}

#[test]
fn dropped_required_entry_fails_the_gate_naming_server_tool_property() {
    let p = project();
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let mut s = surface();
    s["tools"][0]["inputSchema"]["required"] = json!(["query"]);
    p.write_json("surface.json", &s);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["verdict"], "fail");
    let c = changes(&report);
    assert!(
        c.iter().any(|(srv, tool, rule, ptr)| srv == "cat"
            && tool == "search"
            && rule == "required-removed"
            && ptr.contains("status")),
        "{c:?}"
    );
    // The human report names server, tool and property too.
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(1));
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("cat") && human.contains("search") && human.contains("status"), "{human}");
    // --fail-on never only reports.
    let (code, _) = p.check_json(&["--no-probe", "--fail-on", "never"]);
    assert_eq!(code, 0);
}

#[test]
fn reordering_tools_keys_and_required_is_no_change() {
    let p = project();
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    // Same surface, written with tools, keys, required and enum entries in another order.
    let shuffled = r#"{"tools":[
      {"inputSchema":{"required":["id"],"properties":{"id":{"type":"string"}},"type":"object"},"description":"Fetch one record by id.","name":"fetch"},
      {"x-vendor":{"rank":1e3},"execution":{"taskSupport":"forbidden"},"annotations":{"readOnlyHint":true},
       "inputSchema":{"required":["status","query"],"type":"object","properties":{
          "status":{"enum":["all","closed","open"],"type":"string"},
          "limit":{"maximum":100,"minimum":1,"type":"integer"},
          "query":{"description":"What to look for","type":"string"}}},
       "description":"Search the catalogue.","name":"search"}],
      "instructions":"Use search before fetch.","serverInfo":{"version":"1.0.0","name":"fixture"}}"#;
    p.write("surface.json", shuffled);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(changes(&report).is_empty(), "{report:#}");
}

#[test]
fn server_missing_from_lock_is_an_error_telling_to_lock() {
    let p = project();
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    p.write_json("other.json", &surface());
    p.stdio_config(&[("cat", "surface.json"), ("dog", "other.json")]);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 2, "{report:#}");
    let dog = report["servers"].as_array().unwrap().iter().find(|s| s["name"] == "dog").unwrap();
    assert_eq!(dog["status"], "error");
    assert!(dog["error"].as_str().unwrap().contains("mcp-pin lock"), "{dog:#}");
    // The other server was still checked.
    let cat = report["servers"].as_array().unwrap().iter().find(|s| s["name"] == "cat").unwrap();
    assert_eq!(cat["status"], "ok");
}

#[test]
fn missing_lockfile_is_an_error_with_a_hint() {
    let p = project();
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mcp.lock") && err.contains("mcp-pin lock"), "{err}");
}

#[test]
fn failing_server_keeps_its_previous_entry() {
    let p = project();
    p.write_json("other.json", &surface());
    p.stdio_config(&[("cat", "surface.json"), ("dog", "other.json")]);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let before: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    // dog's server now fails to start; cat drifts.
    p.write("other.json", "{ this is not json");
    let mut s = surface();
    s["tools"][1]["description"] = json!("Fetch a record.");
    p.write_json("surface.json", &s);
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("dog"), "{}", text(&out));
    let after: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert_eq!(after["servers"]["dog"], before["servers"]["dog"], "the failing server's entry is untouched");
    assert_eq!(after["servers"]["cat"]["tools"]["fetch"]["description"], "Fetch a record.");
}

#[test]
fn http_server_is_locked_and_checked() {
    let p = project();
    let fx = HttpFixture::start(&p.path("surface.json"), &[]);
    p.write("mcp-pin.toml", &format!("[servers.web]\nurl = {:?}\ntimeout = \"10s\"\n", fx.url));
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert_eq!(lock["servers"]["web"]["source"]["transport"], "http");
    assert!(lock["servers"]["web"]["tools"]["search"]["x-vendor"].is_object());
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
    let mut s = surface();
    s["tools"][0]["inputSchema"]["properties"]["status"]["enum"] = json!(["open", "all"]);
    p.write_json("surface.json", &s);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 1, "{report:#}");
    assert!(changes(&report).iter().any(|c| c.2 == "enum-value-removed"), "{report:#}");
}

#[test]
fn diff_of_two_lockfiles_uses_the_same_engine() {
    let p = project();
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    std::fs::copy(p.path("mcp.lock"), p.path("old.lock")).unwrap();
    let mut s = surface();
    s["tools"].as_array_mut().unwrap().remove(1);
    p.write_json("surface.json", &s);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let out = p.run(&["diff", "old.lock", "mcp.lock", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(changes(&report).iter().any(|c| c.1 == "fetch" && c.2 == "tool-removed"), "{report:#}");
    // tool-removed is silent (RULES.md): the default gate fails; a config may move it back to loud.
    assert_eq!(out.status.code(), Some(1));
    let out = p.run(&["diff", "old.lock", "mcp.lock", "--fail-on", "never"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn secrets_never_reach_the_lockfile_or_output() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.cat]\ncommand = {:?}\nargs = [\"--surface\", \"surface.json\"]\nenv = {{ API_KEY = \"${{CANARY}}\" }}\n",
            fixture_bin()
        ),
    );
    let canary = "canary-5f1d9c2e-secret";
    let out = p.run_env(&["lock", "--no-probe"], &[("CANARY", canary)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out2 = p.run_env(&["check", "--no-probe", "--format", "json"], &[("CANARY", canary)]);
    for blob in [p.read("mcp.lock"), text(&out), text(&out2)] {
        assert!(!blob.contains(canary), "secret leaked: {blob}");
    }
    assert!(p.read("mcp.lock").contains("API_KEY"), "env names are recorded");
}

#[test]
fn ad_hoc_lock_of_one_stdio_server() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    let out = p.run(&["lock", "--no-probe", "--", fixture_bin(), "--surface", "surface.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let servers = lock["servers"].as_object().unwrap();
    assert_eq!(servers.len(), 1);
    let (_, entry) = servers.iter().next().unwrap();
    assert_eq!(entry["tools"].as_object().unwrap().len(), 2);
}

#[test]
fn policy_overrides_and_ignores_apply_and_expire() {
    let p = project();
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let mut s = surface();
    s["tools"][1]["description"] = json!("Fetch one record by its id, politely.");
    p.write_json("surface.json", &s);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 1, "description-changed is silent by default: {report:#}");
    let base = p.read("mcp-pin.toml");
    // Moving the rule to loud passes the default gate.
    p.write("mcp-pin.toml", &format!("{base}\n[rules]\ndescription-changed = \"loud\"\n"));
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(report["servers"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["rule"] == "description-changed" && c["class"] == "loud"));
    // An ignore with a reason silences it; after its date it stops applying and check says so.
    let ignore = "\n[[ignore]]\nrule = \"description-changed\"\nserver = \"cat\"\ntool = \"fetch\"\nreason = \"vendor rewrites descriptions\"\nuntil = \"2026-12-31\"\n";
    p.write("mcp-pin.toml", &format!("{base}{ignore}"));
    let out = p.run_env(&["check", "--no-probe", "--format", "json"], &[("MCP_PIN_TODAY", "2026-12-01")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = p.run_env(&["check", "--no-probe", "--format", "json"], &[("MCP_PIN_TODAY", "2027-01-01")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["servers"][0]["notes"].to_string().contains("expired"), "{report:#}");
}

#[test]
fn today_is_a_calendar_date() {
    let t = mcp_pin::app::today();
    assert_eq!(t.len(), 10, "{t}");
    assert!(t.as_str() > "2024-01-01", "{t}");
}

#[test]
fn claude_code_and_vscode_configs_are_checked_without_conversion() {
    // Claude Code's .mcp.json
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.write_json(
        ".mcp.json",
        &json!({"mcpServers": {"cat": {"command": fixture_bin(), "args": ["--surface", "surface.json"], "env": {}}}}),
    );
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains(".mcp.json"), "says which file it used: {}", text(&out));
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");

    // VS Code's .vscode/mcp.json: JSONC with comments and trailing commas, `servers`, ${env:VAR}.
    let p = Project::new();
    p.write_json("surface.json", &surface());
    std::fs::create_dir_all(p.path(".vscode")).unwrap();
    p.write(
        ".vscode/mcp.json",
        &format!(
            "// workspace MCP servers\n{{\n  \"servers\": {{\n    \"cat\": {{\n      \"type\": \"stdio\",\n      \"command\": {:?},\n      \"args\": [\"--surface\", \"surface.json\"], // the fixture\n      \"env\": {{ \"TOKEN\": \"${{env:MCP_PIN_TEST_TOKEN}}\" }},\n    }},\n  }},\n}}\n",
            fixture_bin()
        ),
    );
    let out = p.run_env(&["lock", "--no-probe"], &[("MCP_PIN_TEST_TOKEN", "tok-1234567")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!p.read("mcp.lock").contains("tok-1234567"));
    let out = p.run_env(&["check", "--no-probe"], &[("MCP_PIN_TEST_TOKEN", "tok-1234567")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // init turns it into an mcp-pin.toml that then works on its own.
    let out = p.run(&["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let toml = p.read("mcp-pin.toml");
    assert!(toml.contains("[servers.cat]") && toml.contains("${MCP_PIN_TEST_TOKEN}"), "{toml}");
    let out = p.run_env(&["check", "--no-probe"], &[("MCP_PIN_TEST_TOKEN", "tok-1234567")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // A second init refuses to overwrite.
    assert_eq!(p.run(&["init"]).status.code(), Some(2));
}

#[test]
fn ad_hoc_http_url() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    let fx = HttpFixture::start(&p.path("surface.json"), &[]);
    let out = p.run(&["lock", "--no-probe", "--", &fx.url]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = p.run(&["check", "--no-probe", "--", &fx.url]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn shards_cover_every_server_once_and_merge_into_one_report() {
    let p = project();
    p.write_json("b.json", &surface());
    p.write_json("c.json", &surface());
    p.stdio_config(&[("cat", "surface.json"), ("dog", "b.json"), ("emu", "c.json")]);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let mut s = surface();
    s["tools"][0]["inputSchema"]["required"] = json!(["query"]);
    p.write_json("b.json", &s);
    let mut names = vec![];
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let out = p.run(&[
            "check",
            "--no-probe",
            "--fail-on",
            "never",
            "--shard",
            &shard,
            "--output",
            &format!("r{k}.json"),
            "--format",
            "json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let r: Value = serde_json::from_str(&p.read(&format!("r{k}.json"))).unwrap();
        names.extend(r["servers"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()));
    }
    names.sort();
    assert_eq!(names, ["cat", "dog", "emu"]);
    // Merged, with the default gate: dog's silent drift fails it.
    let out = p.run(&["report", "merge", "r1.json", "r2.json", "--format", "json", "--fail-on", "silent"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let merged: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(merged["servers"].as_array().unwrap().len(), 3);
    assert!(changes(&merged).iter().any(|c| c.0 == "dog" && c.2 == "required-removed"));
    // Without --fail-on the shards' own gate (never) applies.
    let out = p.run(&["report", "merge", "r1.json", "r2.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

fn drift_both_tools(p: &Project) {
    let mut s = surface();
    s["tools"][0]["inputSchema"]["required"] = json!(["query"]); // search: silent
    s["tools"][1]["description"] = json!("Fetch a record."); // fetch: silent
    p.write_json("surface.json", &s);
}

#[test]
fn lock_accepts_one_tool_non_interactively() {
    let p = project();
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    drift_both_tools(&p);
    let out = p.run(&["lock", "--no-probe", "--server", "cat", "--tool", "fetch"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("description-changed") && !printed.contains("required-removed"),
        "prints only what it accepts: {printed}"
    );
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 1);
    let c = changes(&report);
    assert!(c.iter().all(|c| c.1 == "search"), "fetch accepted, search still pending: {c:?}");
}

#[test]
fn review_accepts_and_rejects_tool_by_tool() {
    let p = project();
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    drift_both_tools(&p);
    // Tools come in risk order: search's dropped requirement (no), then fetch's rewording (yes).
    let mut child = std::process::Command::new(pin_bin())
        .args(["review", "--no-probe"])
        .current_dir(p.dir.path())
        .env_remove("CI")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    // `n` asks why (the reason is recorded for the team).
    child.stdin.take().unwrap().write_all(b"n\nsearch drops a required argument\ny\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (_, report) = p.check_json(&["--no-probe"]);
    let c = changes(&report);
    assert!(!c.is_empty() && c.iter().all(|c| c.1 == "search"), "{c:?}");
    // In CI it never waits for input.
    let out = p.run_env(&["review", "--no-probe"], &[("CI", "true")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interactive"));
}

#[test]
fn server_dropped_from_config_is_noted_by_check_and_removed_by_lock() {
    let p = project();
    p.write_json("b.json", &surface());
    p.stdio_config(&[("cat", "surface.json"), ("dog", "b.json")]);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    p.stdio_config(&[("cat", "surface.json")]);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(report.to_string().contains("no longer in the config"), "{report:#}");
    let out = p.run(&["lock", "--no-probe"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed dog"), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert!(lock["servers"].get("dog").is_none());
}

#[test]
fn hidden_characters_in_a_type_name_are_shown_escaped() {
    // Found by the property tests: a `type` value carrying U+200B reached a message raw.
    let a = json!({"name": "t", "inputSchema": {}});
    let b = json!({"name": "t", "inputSchema": {"type": "\u{200b}"}});
    for c in mcp_pin::diff::diff_tool("t", &a, &b) {
        assert!(!c.message.contains('\u{200b}'), "{}", c.message);
    }
}

/// Capabilities and serverInfo fields rmcp's types do not know (a newer spec's capability, a
/// vendor key) are pinned raw, over stdio and HTTP, and their change is reported.
#[test]
fn unknown_capabilities_and_server_info_fields_are_pinned_raw() {
    let p = project();
    let mut s = surface();
    s["capabilities"] = json!({"tools": {"listChanged": true}, "tasks": {"requests": {"tools": {"call": {}}}}, "x-vendor": {"mode": 1}});
    s["serverInfo"] = json!({"name": "cat", "version": "1.0.0", "websiteUrl": "https://example.com"});
    p.write_json("surface.json", &s);
    let fx = HttpFixture::start(&p.path("surface.json"), &[]);
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.cat]\ncommand = {:?}\nargs = [\"--surface\", \"surface.json\"]\n\n[servers.web]\nurl = {:?}\ntimeout = \"10s\"\n",
            fixture_bin(),
            fx.url
        ),
    );
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    for server in ["cat", "web"] {
        let entry = &lock["servers"][server];
        assert_eq!(entry["capabilities"], s["capabilities"], "{server}: {entry:#}");
        assert_eq!(entry["serverInfo"]["websiteUrl"], "https://example.com", "{server}: {entry:#}");
    }
    s["capabilities"]["x-vendor"] = json!({"mode": 2});
    s["capabilities"]["tasks"] = json!({});
    p.write_json("surface.json", &s);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "capabilities-changed is loud: {report:#}");
    for server in report["servers"].as_array().unwrap() {
        let pointers: Vec<&str> = server["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["rule"] == "capabilities-changed")
            .map(|c| c["pointer"].as_str().unwrap())
            .collect();
        assert_eq!(pointers, ["/capabilities/tasks", "/capabilities/x-vendor"], "{report:#}");
    }
}

#[test]
fn tool_removed_is_silent_and_a_config_can_move_it_back_to_loud() {
    let p = project();
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let mut s = surface();
    s["tools"].as_array_mut().unwrap().remove(1);
    p.write_json("surface.json", &s);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 1, "{report:#}");
    assert!(report["servers"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["rule"] == "tool-removed" && c["class"] == "silent"));
    let config = p.read("mcp-pin.toml") + "\n[rules]\ntool-removed = \"loud\"\n";
    p.write("mcp-pin.toml", &config);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(report["servers"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["rule"] == "tool-removed" && c["class"] == "loud"));
    // Every tool gone (and nothing else changed): one silent line saying so.
    p.write("mcp-pin.toml", &config.replace("\n[rules]\ntool-removed = \"loud\"\n", ""));
    let mut s = surface();
    s["tools"] = json!([]);
    p.write_json("surface.json", &s);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 1, "{report:#}");
    let changes = report["servers"][0]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{report:#}");
    assert!(changes[0]["message"].as_str().unwrap().contains("every tool is gone"), "{report:#}");
}

/// `--quiet` prints only what it says: each server error under its server's name, and the
/// verdict; no change line, even one whose text holds the word "error:".
#[test]
fn quiet_check_prints_only_the_errors_and_the_verdict() {
    let p = Project::new();
    p.write_json("a.json", &surface());
    p.write_json("b.json", &surface());
    p.stdio_config(&[("broken", "a.json"), ("drifted", "b.json")]);
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let mut s = surface();
    s["tools"][0]["description"] = json!("error: search the catalogue, then say nothing.");
    p.write_json("b.json", &s);
    std::fs::remove_file(p.path("a.json")).unwrap();
    let out = p.run(&["check", "--no-probe", "--quiet"]);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "server broken", "{stdout}");
    assert!(lines[1].starts_with("  error: handshake failed"), "{stdout}");
    // The whole error, its server's stderr included, indented under it.
    assert!(lines[1..lines.len() - 1].iter().all(|l| l.starts_with("  ")), "{stdout}");
    // Headed as an error (exit 2), not as a failed gate; the drift is counted besides.
    assert!(
        lines[lines.len() - 1].starts_with(
            "ERROR: 1 server could not be checked, and 1 silent change blocks the merge · 1 silent, 0 loud"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("drifted") && !stdout.contains("say nothing"), "{stdout}");
}
