//! Real published MCP servers (pinned versions) through npx. Skipped when npx is absent;
//! `.ci/run` prefetches the packages.

use crate::common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
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
    // Pick a free port, then let the server bind it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new("npx")
        .args(["-y", EVERYTHING, "streamableHttp"])
        .env("PORT", port.to_string())
        .env("GZIP_ALLOWED_DOMAINS", "localhost")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    // Wait for "listening".
    let stderr = child.stderr.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    /// Kills the server's whole process group and reaps npx (no zombie left behind).
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let pgid = nix::unistd::Pid::from_raw(self.0.id() as i32);
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
            let _ = self.0.wait();
        }
    }
    let _guard = Kill(child);
    let (tx, rx) = std::sync::mpsc::channel();
    for stream in [Box::new(stderr) as Box<dyn std::io::Read + Send>, Box::new(stdout)] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if line.contains("listening") {
                    let _ = tx.send(());
                }
            }
        });
    }
    rx.recv_timeout(std::time::Duration::from_secs(120)).expect("server-everything did not start");
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
    assert_eq!(plain["servers"]["everything"]["clientCapabilities"], serde_json::json!([]));
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
    let (code, report) = p.check_json(&["--fail-on", "loud"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(changes(&report).is_empty(), "{report:#}");
    assert_eq!(report["counts"]["probeFailures"], 0, "{report:#}");
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

/// `init` → `lock` → `check` on server-filesystem passes out of the box: the synthesised
/// `path: ""` makes three readers answer EISDIR at lock and at check, which is not drift; each
/// says which fixture line would probe it.
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
    assert!(err.contains("could not succeed with synthesised arguments"), "{err}");
    assert!(err.contains("[servers.filesystem.tools.read_file] args = { path = ... }"), "{err}");
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    let probes = report["servers"][0]["probes"].as_array().unwrap();
    let read_file = probes.iter().find(|p| p["tool"] == "read_file" && p["kind"] == "call").unwrap();
    assert_eq!(read_file["outcome"], "skipped", "{read_file:#}");
    let summary = report["servers"][0]["probeSummary"].as_str().unwrap();
    assert!(
        summary.contains("cannot succeed with synthesised arguments") && summary.contains(" 0 failed"),
        "{summary}"
    );
}
