//! Real published MCP servers (pinned versions) through npx. Skipped when npx is absent;
//! `.ci/run` prefetches the packages.

use crate::common;

use std::process::{Command, Stdio};

use common::*;
use serde_json::Value;

const EVERYTHING: &str = "@modelcontextprotocol/server-everything@2026.8.31";
const FILESYSTEM: &str = "@modelcontextprotocol/server-filesystem@2026.8.31";

fn everything_config(p: &Project) {
    everything_config_as(p, "");
}

/// The same, with `extra` config lines for the server (`client = "mcp-pin"`).
fn everything_config_as(p: &Project, extra: &str) {
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.everything]\ncommand = \"npx\"\nargs = [\"-y\", \"{EVERYTHING}\"]\nenv = {{ GZIP_ALLOWED_DOMAINS = \"localhost\" }}\ntimeout = \"60s\"\n{extra}\n[servers.everything.tools.get-env]\nprobe = \"none\"\n"
        ),
    );
}

#[test]
fn server_everything_over_stdio_is_pinned_and_checked() {
    if !have_npx() {
        skip("npx not found");
        return;
    }
    let p = Project::new();
    everything_config(&p);
    // With probes: the safe (read-only) tools are called end to end; get-env never is.
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let entry = &lock["servers"]["everything"];
    assert!(entry["probes"]["get-structured-content"]["structuredContent"].is_object(), "{:#}", entry["probes"]);
    assert!(entry["probes"].get("get-env").is_none());
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let probes = report["servers"][0]["probes"].as_array().unwrap();
    for tool in [
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
        "get-resource-links",
        "get-resource-reference",
        "get-annotated-message",
    ] {
        assert!(
            probes.iter().any(|p| p["tool"] == tool && p["kind"] == "call" && p["outcome"] == "pass"),
            "{tool}: {probes:#?}"
        );
    }
    assert!(probes.iter().any(|p| p["tool"] == "get-env" && p["outcome"] == "skipped"));
    assert_eq!(entry["serverInfo"]["name"], "mcp-servers/everything");
    let tools = entry["tools"].as_object().unwrap();
    assert!(tools.len() >= 10, "{}", tools.len());
    // The spec's own `execution` field, which rmcp's typed Tool drops, is kept.
    assert!(tools["echo"]["execution"].is_object(), "{:#}", tools["echo"]);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(changes(&report).is_empty(), "{report:#}");
}

#[test]
fn server_everything_over_streamable_http_is_pinned_and_checked() {
    if !have_npx() {
        skip("npx not found");
        return;
    }
    // The server binds a port of its own (PORT=0); the kernel says which.
    let mut cmd = Command::new("npx");
    cmd.args(["-y", EVERYTHING, "streamableHttp"])
        .env("PORT", "0")
        .env("GZIP_ALLOWED_DOMAINS", "localhost")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let server = ListeningServer::start(cmd, std::time::Duration::from_secs(120));
    let port = server.port;
    let p = Project::new();
    p.write(
        "mcp-pin.toml",
        &format!("[servers.everything]\nurl = \"http://127.0.0.1:{port}/mcp\"\ntimeout = \"30s\"\n"),
    );
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert!(lock["servers"]["everything"]["tools"]["get-sum"].is_object(), "{lock:#}");
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn declared_client_capabilities_change_the_surface_and_are_labelled() {
    if !have_npx() {
        skip("npx not found");
        return;
    }
    let p = Project::new();
    let base = format!("[servers.everything]\ncommand = \"npx\"\nargs = [\"-y\", \"{EVERYTHING}\"]\nenv = {{ GZIP_ALLOWED_DOMAINS = \"localhost\" }}\ntimeout = \"60s\"\n");
    p.write("mcp-pin.toml", &base);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let plain: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    p.write("mcp-pin.toml", &format!("{base}client_capabilities = [\"roots\", \"sampling\", \"elicitation\"]\n"));
    // Checking the old lock with new capabilities: a configuration change, labelled as such.
    let (_, report) = p.check_json(&["--no-probe"]);
    let notes = report["servers"][0]["notes"].to_string();
    assert!(notes.contains("configuration change") && notes.contains("client capabilities"), "{report:#}");
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let rich: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let caps = &rich["servers"]["everything"]["clientCapabilities"];
    assert_eq!(caps, &serde_json::json!(["elicitation", "roots", "sampling"]));
    // Without a `client_capabilities` line, those of the client mcp-pin presents itself as
    // (Claude Code by default: roots, answered with the project folder, and elicitation).
    assert_eq!(plain["servers"]["everything"]["clientCapabilities"], serde_json::json!(["elicitation", "roots"]));
    let n_plain = plain["servers"]["everything"]["tools"].as_object().unwrap().len();
    let n_rich = rich["servers"]["everything"]["tools"].as_object().unwrap().len();
    assert!(n_rich > n_plain, "server-everything lists more tools to a capable client ({n_plain} vs {n_rich})");
}

/// The committed `mcp.lock.example` was taken from this exact server version: checking the live
/// server against it (probes included) finds nothing, on any machine.
#[test]
fn server_everything_matches_the_committed_example_lock() {
    if !have_npx() {
        skip("npx not found");
        return;
    }
    let p = Project::new();
    everything_config(&p);
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/mcp.lock.example"), p.path("mcp.lock")).unwrap();
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert!(changes(&report).is_empty(), "{report:#}");
}

/// A lockfile the previous mcp-pin wrote (before the result contract: no `blocks`, first-element
/// skeletons) still reads, and its first check reports nothing for the atoms it never pinned.
#[test]
fn server_everything_checks_clean_against_a_lock_from_before_the_result_contract() {
    if !have_npx() {
        skip("npx not found");
        return;
    }
    let p = Project::new();
    // That mcp-pin introduced itself as itself, with no capabilities; server-everything lists two
    // more tools to a client that declares roots and elicitation, as Claude Code (the default) does.
    everything_config_as(&p, "client = \"mcp-pin\"\n");
    let old = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/everything-before-result-contract.lock");
    assert!(!std::fs::read_to_string(old).unwrap().contains("\"blocks\""));
    std::fs::copy(old, p.path("mcp.lock")).unwrap();
    // The config as it was then: that mcp-pin declared no capability (it declares `roots` now).
    let base = p.read("mcp-pin.toml").replace("timeout = \"60s\"\n", "timeout = \"60s\"\nclient_capabilities = []\n");
    p.write("mcp-pin.toml", &base);
    let (code, report) = p.check_json(&["--fail-on", "loud"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(changes(&report).is_empty(), "{report:#}");
    assert_eq!(report["counts"]["probeFailures"], 0, "{report:#}");
    // With the config as it is now (no `client` line: mcp-pin presents itself as Claude Code,
    // which declares roots and elicitation), the first check after the upgrade presents itself
    // as the lock was taken (as mcp-pin, no capabilities), says so, and reports nothing, even to
    // the strict gate.
    everything_config(&p);
    let (code, report) = p.check_json(&["--fail-on", "loud"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(changes(&report).is_empty(), "{report:#}");
    assert!(report["servers"][0]["notes"].to_string().contains("pinned by an earlier mcp-pin"), "{report:#}");
    // `lock` then pins what Claude Code is shown: two more tools, accepted there.
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let entry = &lock["servers"]["everything"];
    assert_eq!(entry["client"], "claude-code", "{entry:#}");
    assert_eq!(entry["clientCapabilities"], serde_json::json!(["elicitation", "roots"]), "{entry:#}");
    for t in ["get-roots-list", "trigger-elicitation-request"] {
        assert!(entry["tools"][t].is_object(), "{t}: {entry:#}");
    }
    let (code, report) = p.check_json(&["--no-probe", "--fail-on", "loud"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(report["servers"][0]["notes"].as_array().unwrap().is_empty(), "{report:#}");
}

/// Values that change between calls never fail the gate: lock, check, check, lock, check.
#[test]
fn server_everything_locks_and_checks_clean_twice_in_a_row() {
    if !have_npx() {
        skip("npx not found");
        return;
    }
    let p = Project::new();
    everything_config(&p);
    // Fixtures that make the results carry audiences, an image and an embedded blob too.
    let base = p.read("mcp-pin.toml");
    p.write(
        "mcp-pin.toml",
        &format!(
            "{base}\n[servers.everything.tools.get-annotated-message]\nargs = {{ messageType = \"debug\", includeImage = true }}\n\n[servers.everything.tools.get-resource-reference]\nargs = {{ resourceType = \"Blob\", resourceId = 2 }}\n"
        ),
    );
    for round in 0..2 {
        let out = p.run(&["lock"]);
        assert_eq!(out.status.code(), Some(0), "round {round}: {}", text(&out));
        for _ in 0..2 {
            let (code, report) = p.check_json(&["--fail-on", "loud"]);
            assert_eq!(code, 0, "round {round}: {report:#}");
            assert_eq!(report["counts"]["probeFailures"], 0, "round {round}: {report:#}");
            let summary = report["servers"][0]["probeSummary"].as_str().unwrap().to_string();
            assert!(summary.contains(" 0 failed"), "{summary}");
        }
    }
    // Its results carry text, images, resource links and embedded resources: all pinned.
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    let pins = lock["servers"]["everything"]["probes"].to_string();
    for kind in ["\"text\"", "\"image\"", "\"resource_link\"", "\"resource(blob)\""] {
        assert!(pins.contains(&format!("\"kind\":{kind}")), "{kind} not pinned: {pins}");
    }
    let annotated = &lock["servers"]["everything"]["probes"]["get-annotated-message"]["blocks"];
    assert!(annotated.to_string().contains("\"audience\":[\"user\"]"), "{annotated}");
}

/// `init` → `lock` → `check` on server-filesystem passes out of the box, and every reader's
/// valid call reaches its code: `lock` finds a path the tool accepts (a file of the folder the
/// server was given, the folder itself) instead of a `path: ""` that answers EISDIR.
#[test]
fn server_filesystem_init_lock_check_passes_out_of_the_box() {
    if !have_npx() {
        skip("npx not found");
        return;
    }
    let p = Project::new();
    let root = std::fs::canonicalize(p.dir.path()).unwrap().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "hi\n").unwrap();
    let mcp = serde_json::json!({"mcpServers": {"filesystem": {"command": "npx", "args": ["-y", FILESYSTEM, root.display().to_string()]}}});
    p.write_json(".mcp.json", &mcp);
    let out = p.run(&["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    // No warning but the cues a first pin reports (RULES.md, "Risk within a rule": `read_file`'s
    // description names `read_text_file`, another tool); no instruction cue in its plain words.
    let warnings: Vec<&str> =
        err.lines().filter(|l| l.contains("warning:") && !l.contains("carry another tool's name")).collect();
    assert!(warnings.is_empty(), "{err}");
    assert!(err.contains("probe of `read_text_file` passed"), "{err}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let probes = report["servers"][0]["probes"].as_array().unwrap();
    let read_file = probes.iter().find(|p| p["tool"] == "read_file" && p["kind"] == "call").unwrap();
    assert_eq!(read_file["outcome"], "pass", "{read_file:#}");
    // Every reader called passes, and each incomplete call is judged.
    let summary = report["servers"][0]["probeSummary"].as_str().unwrap();
    assert!(summary.contains(" 0 failed; ") && !summary.contains("failed at lock"), "{summary}");
    let skipped_incomplete: Vec<_> =
        probes.iter().filter(|p| p["kind"] == "incomplete" && p["outcome"] == "skipped").collect();
    assert!(skipped_incomplete.is_empty(), "{skipped_incomplete:#?}");
}
