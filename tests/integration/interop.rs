//! Interoperability with servers nobody on the team wrote: the official Python SDK (PyPI `mcp`
//! 2.x) serving the stateless 2026-07-28 revision over stdio and HTTP, and the published
//! `mcp-server-time`. `.ci/run` installs them into `target/py`; without that venv the tests skip.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::*;
use serde_json::Value;

fn python() -> Option<PathBuf> {
    let p = std::env::var_os("MCP_PIN_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/py/bin/python"));
    let ok = Command::new(&p)
        .args(["-c", "import mcp.server.mcpserver"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    ok.then_some(p)
}

fn py_server() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/py_server.py").display().to_string()
}

#[test]
fn stateless_python_server_over_stdio_is_pinned_at_2026_07_28() {
    let Some(py) = python() else {
        skip("no Python venv with mcp 2.x (run .ci/run)");
        return;
    };
    let p = Project::new();
    p.write(
        "mcp-pin.toml",
        &format!(
            // As itself: mcp-pin negotiates the newest revision (the editors' identities offer 2025-11-25).
            "[servers.py]\ncommand = {:?}\nargs = [{:?}, \"stdio\"]\ntimeout = \"30s\"\nclient = \"mcp-pin\"\n",
            py.display().to_string(),
            py_server()
        ),
    );
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let entry = &lock["servers"]["py"];
    assert_eq!(entry["protocolVersion"], "2026-07-28", "{entry:#}");
    // Python-style optional: anyOf [string, null] with default null, kept exactly.
    let punct = &entry["tools"]["greet"]["inputSchema"]["properties"]["punctuation"];
    assert_eq!(punct["anyOf"][1]["type"], "null", "{punct:#}");
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn stateless_python_server_over_http_is_pinned_and_checked() {
    let Some(py) = python() else {
        skip("no Python venv with mcp 2.x (run .ci/run)");
        return;
    };
    let mut cmd = Command::new(&py);
    cmd.args([py_server(), "http".into(), "0".into()]).stdout(Stdio::null()).stderr(Stdio::null());
    let server = ListeningServer::start(cmd, std::time::Duration::from_secs(60));
    let port = server.port;
    let p = Project::new();
    p.write(
        "mcp-pin.toml",
        &format!("[servers.py]\nurl = \"http://127.0.0.1:{port}/mcp\"\ntimeout = \"30s\"\nclient = \"mcp-pin\"\n"),
    );
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert_eq!(lock["servers"]["py"]["protocolVersion"], "2026-07-28");
    assert!(lock["servers"]["py"]["tools"]["add"]["outputSchema"].is_object());
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn published_python_time_server_is_pinned_and_checked() {
    let Some(py) = python() else {
        skip("no Python venv (run .ci/run)");
        return;
    };
    let exe = py.parent().unwrap().join("mcp-server-time");
    if !exe.exists() {
        skip("mcp-server-time not installed in the venv");
        return;
    }
    let p = Project::new();
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.time]\ncommand = {:?}\nargs = [\"--local-timezone\", \"UTC\"]\ntimeout = \"60s\"\n",
            exe.display().to_string()
        ),
    );
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let tools = lock["servers"]["time"]["tools"].as_object().unwrap();
    assert!(tools.contains_key("get_current_time"), "{tools:?}");
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
}

/// The Python SDK wraps a return value that is no object (RULES.md, the result contract, 6):
/// `outputSchema` `{result}`, `structuredContent` `{"result": X}`, and X as text (a list as one
/// block per item). Against the real SDK (`tests/servers/py_result_server.py`), a list of objects,
/// a list of numbers, a string, an object it wraps and one it does not: `lock` and `check` report
/// no `text-structure-conflict` (they did for the list of objects and the wrapped object before
/// the wrapper was read), and the tool whose text really disagrees with its wrapped value does.
#[test]
fn python_sdk_result_wrapper_agrees_with_its_text() {
    let Some(py) = python() else {
        skip("no Python venv with mcp 2.x (run .ci/run)");
        return;
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/servers/py_result_server.py");
    let p = Project::new();
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.py]\ncommand = {:?}\nargs = [{:?}]\ntimeout = \"30s\"\n",
            py.display().to_string(),
            script.display().to_string()
        ),
    );
    let out = p.run(&["lock"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let conflicts: Vec<&str> = said.lines().filter(|l| l.contains("text-structure-conflict")).collect();
    assert_eq!(conflicts.len(), 1, "{said}");
    assert!(conflicts[0].contains("stale_total"), "{said}");
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let tools = lock["servers"]["py"]["tools"].as_object().unwrap();
    for t in ["list_notes", "count_words", "greet", "find_note"] {
        assert_eq!(tools[t]["outputSchema"]["required"], serde_json::json!(["result"]), "{t}: {:#}", tools[t]);
    }
    let pinned = &lock["servers"]["py"]["probes"];
    for t in ["list_notes", "find_note", "stats"] {
        assert_eq!(pinned[t]["textStructure"], "equivalent-json", "{t}: {pinned:#}");
    }
    let (_, report) = p.check_json(&[]);
    let probes = report["servers"][0]["probes"].as_array().unwrap();
    let conflicting: Vec<&str> =
        probes.iter().filter(|p| p["rule"] == "text-structure-conflict").filter_map(|p| p["tool"].as_str()).collect();
    // `stale_total` was pinned conflicting: not new drift at `check`. Nothing else conflicts.
    assert!(conflicting.is_empty(), "{report:#}");
    for t in ["list_notes", "count_words", "greet", "find_note", "stats"] {
        let call = probe(&report, t, "call");
        assert_eq!(call["outcome"], "pass", "{t}: {call:#}");
    }
}

/// Legacy revisions through `initialize`, each recorded in the lock; a revision change with an
/// identical surface is only `protocol-version-changed`.
#[test]
fn legacy_revisions_are_negotiated_recorded_and_diffed() {
    let p = Project::new();
    let surface = |versions: &[&str]| {
        serde_json::json!({
            "discover": false,
            "protocolVersions": versions,
            "tools": [{"name": "t", "description": "T.", "inputSchema": {"type": "object"}}]
        })
    };
    p.write_json("s.json", &surface(&["2025-06-18"]));
    p.stdio_config(&[("old", "s.json")]);
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert_eq!(lock["servers"]["old"]["protocolVersion"], "2025-06-18");
    for (versions, expect) in [
        (&["2025-03-26"][..], "2025-03-26"),
        (&["2024-11-05"][..], "2024-11-05"),
        (&["2025-11-25", "2025-06-18"][..], "2025-11-25"),
    ] {
        p.write_json("s.json", &surface(versions));
        let (code, report) = p.check_json(&["--no-probe"]);
        assert_eq!(code, 0, "{report:#}");
        let c = changes(&report);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].2, "protocol-version-changed");
        assert!(report["servers"][0]["changes"][0]["after"].to_string().contains(expect), "{report:#}");
    }
}
