//! End-to-end probes against real MCP servers (no faked protocol). Skipped when `npx` is not on
//! PATH. The packages are pinned; the first run downloads them through the npm registry.
use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mcp_pin::client::Session;
use mcp_pin::config::{ProbePolicy, ServerConfig, Stdio, ToolConfig, Transport};
use mcp_pin::probe::{self, Probe, ProbeKind, ProbeOutcome, ProbeRun};
use serde_json::{json, Value};

const EVERYTHING: &str = "@modelcontextprotocol/server-everything@2026.8.31";
const FILESYSTEM: &str = "@modelcontextprotocol/server-filesystem@2026.8.31";

fn have_npx() -> bool {
    std::process::Command::new("npx")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn npx_server(name: &str, args: Vec<String>, env: BTreeMap<String, String>) -> ServerConfig {
    let mut full = vec!["-y".to_string()];
    full.extend(args);
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio(Stdio {
            command: "npx".into(),
            command_template: "npx".into(),
            args: full.clone(),
            args_template: full,
            env,
            cwd: None,
            cwd_template: None,
            launch: Default::default(),
            inherit_env: Default::default(),
        }),
        // npx may have to fetch the package on the first run.
        timeout: Duration::from_secs(60),
        max_tools: mcp_pin::config::DEFAULT_MAX_TOOLS,
        max_listing_bytes: mcp_pin::config::DEFAULT_MAX_LISTING_BYTES,
        client: Default::default(),
        client_capabilities: vec![],
        client_capabilities_set: false,
        client_set: false,
        probe: ProbePolicy::ReadOnly,
        tools: BTreeMap::new(),
    }
}

fn tool_cfg(args: Option<Value>, probe: Option<ProbePolicy>) -> ToolConfig {
    ToolConfig { args, probe }
}

async fn probe_server(
    server: &ServerConfig,
    pinned: Option<&BTreeMap<String, Value>>,
) -> (BTreeMap<String, Value>, ProbeRun) {
    let session = Session::connect(server).await.expect("connect");
    let tools = session.list_tools().await.expect("tools/list");
    let run = probe::run(session, server, &tools, pinned).await;
    (tools, run)
}

fn find<'a>(run: &'a ProbeRun, tool: &str, kind: ProbeKind) -> Vec<&'a Probe> {
    run.probes.iter().filter(|p| p.tool == tool && p.kind == kind).collect()
}

fn assert_pass(run: &ProbeRun, tool: &str, kind: ProbeKind) {
    let ps = find(run, tool, kind);
    assert!(ps.len() == 1 && ps[0].outcome == ProbeOutcome::Pass, "{tool} {kind:?}: {ps:#?}\nall: {:#?}", run.probes);
}

fn assert_skipped(run: &ProbeRun, tool: &str, needle: &str) {
    let ps = find(run, tool, ProbeKind::Call);
    assert!(
        ps.len() == 1 && ps[0].outcome == ProbeOutcome::Skipped && ps[0].message.contains(needle),
        "{tool}: {ps:#?}"
    );
    assert!(find(run, tool, ProbeKind::Incomplete).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_passes_end_to_end() {
    if !have_npx() {
        common::skip("npx not found");
        return;
    }
    let env = BTreeMap::from([("GZIP_ALLOWED_DOMAINS".to_string(), "localhost".to_string())]);
    let mut server = npx_server("everything", vec![EVERYTHING.into()], env);
    // Never call get-env: it returns the whole environment.
    server.tools.insert("get-env".into(), tool_cfg(None, Some(ProbePolicy::None)));
    // A fixture: read-only, but it sleeps `duration` seconds by default (10).
    server
        .tools
        .insert("trigger-long-running-operation".into(), tool_cfg(Some(json!({"duration": 1, "steps": 1})), None));
    // Enabled, but it requires tasks: skipped without a call.
    server.tools.insert("simulate-research-query".into(), tool_cfg(None, Some(ProbePolicy::All)));

    let (tools, run) = probe_server(&server, None).await;
    assert!(tools.contains_key("get-env"));

    assert_skipped(&run, "get-env", "probe = \"none\"");
    assert_skipped(&run, "simulate-research-query", "task");
    // Not annotated read-only: skipped with the line that enables it.
    assert_skipped(
        &run,
        "toggle-subscriber-updates",
        "[servers.everything.tools.toggle-subscriber-updates] probe = \"all\"",
    );
    assert_skipped(&run, "gzip-file-as-resource", "probe = \"all\"");

    for t in [
        "echo",
        "get-sum",
        "get-structured-content",
        "get-tiny-image",
        "get-resource-links",
        "get-resource-reference",
        "get-annotated-message",
        "trigger-long-running-operation",
    ] {
        assert_pass(&run, t, ProbeKind::Call);
    }
    for t in ["echo", "get-sum", "get-structured-content", "get-annotated-message"] {
        assert_pass(&run, t, ProbeKind::Incomplete);
    }
    // No failures anywhere.
    assert_eq!(run.failures(), 0, "{:#?}", run.probes);

    let s = &run.shapes;
    assert!(!s.contains_key("get-env"));
    assert_eq!(s["get-tiny-image"]["content"], json!(["text", "image"]));
    assert!(s["get-structured-content"]["structuredContent"].is_object(), "{}", s["get-structured-content"]);
    let mut echo = s["echo"].clone();
    // The arguments mcp-pin found are pinned beside the contract.
    assert!(echo["call"]["args"]["message"].is_string(), "{echo}");
    echo.as_object_mut().unwrap().remove("call");
    assert_eq!(
        echo,
        json!({"content": ["text"], "blocks": [{"kind": "text"}], "textStructure": "text-only", "isError": false, "contractVersion": 2})
    );
    assert!(s["get-resource-links"]["content"].as_array().unwrap().contains(&json!("resource_link")));
    // Shapes never carry values.
    let all = serde_json::to_string(s).unwrap();
    assert!(!all.contains("Echo:") && !all.contains("iVBOR"), "{all}");

    // Check against the shapes just pinned: everything still passes, and a tampered pin fails
    // with result-shape-changed.
    let mut pinned = run.shapes.clone();
    pinned.insert("get-tiny-image".into(), json!({"content": ["image"], "textStructure": "no-text", "isError": false}));
    let (_, again) = probe_server(&server, Some(&pinned)).await;
    let ps = find(&again, "get-tiny-image", ProbeKind::Call);
    assert_eq!(ps.len(), 1);
    assert_eq!(ps[0].rule, Some(probe::RESULT_SHAPE_CHANGED), "{ps:#?}");
    assert!(ps[0].message.contains("text block never seen at lock (pinned kinds: [image])"), "{}", ps[0].message);
    assert_eq!(again.failures(), 1, "{:#?}", again.probes);
}

fn write(dir: &Path, name: &str, data: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_filesystem_passes_end_to_end() {
    if !have_npx() {
        common::skip("npx not found");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The server resolves symlinks (/tmp may be one); give it the real path.
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    let d = dir.to_string_lossy().into_owned();
    let text = write(&dir, "notes.txt", b"line one\nline two\n");
    // 1x1 PNG
    let png = write(
        &dir,
        "pixel.png",
        &[
            0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
            0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00,
            0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d,
            0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
        ],
    );
    let mut server = npx_server("filesystem", vec![FILESYSTEM.into(), d.clone()], BTreeMap::new());
    let fixtures = [
        ("read_file", json!({"path": text})),
        ("read_text_file", json!({"path": text})),
        ("read_media_file", json!({"path": png})),
        ("read_multiple_files", json!({"paths": [text]})),
        ("list_directory", json!({"path": d})),
        ("list_directory_with_sizes", json!({"path": d})),
        ("directory_tree", json!({"path": d})),
        ("search_files", json!({"path": d, "pattern": "notes"})),
        ("get_file_info", json!({"path": text})),
    ];
    for (t, a) in &fixtures {
        server.tools.insert((*t).into(), tool_cfg(Some(a.clone()), None));
    }
    let (tools, run) = probe_server(&server, None).await;

    // Writers are not annotated read-only and have no fixture: skipped, never called.
    for t in ["write_file", "edit_file", "create_directory", "move_file"] {
        if tools.contains_key(t) {
            assert_skipped(&run, t, "probe = \"all\"");
        }
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "a writer was called");

    let mut probed = 0;
    for (name, def) in &tools {
        if find(&run, name, ProbeKind::Call)[0].outcome == ProbeOutcome::Skipped {
            continue;
        }
        probed += 1;
        assert_pass(&run, name, ProbeKind::Call);
        assert!(def.get("outputSchema").is_some(), "{name}");
        assert!(run.shapes[name].get("structuredContent").is_some(), "{name}: {}", run.shapes[name]);
        if def["inputSchema"].get("required").and_then(Value::as_array).is_some_and(|r| !r.is_empty()) {
            assert_pass(&run, name, ProbeKind::Incomplete);
        }
    }
    assert!(probed >= 10, "{:#?}", run.probes);
    assert_pass(&run, "list_allowed_directories", ProbeKind::Call);
    assert_eq!(run.failures(), 0, "{:#?}", run.probes);
}

/// Where a Python server's entry point is: the venv `.ci/run` builds (`target/py`), else PATH.
fn python_exe(cmd: &str) -> Option<String> {
    let venv = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/py/bin").join(cmd);
    if venv.is_file() {
        return Some(venv.display().to_string());
    }
    std::env::var_os("PATH")
        .and_then(|p| std::env::split_paths(&p).map(|d| d.join(cmd)).find(|p| p.is_file()))
        .map(|p| p.display().to_string())
}

fn plain_server(name: &str, command: &str, args: Vec<String>) -> ServerConfig {
    ServerConfig {
        name: name.into(),
        transport: Transport::Stdio(Stdio {
            command: command.into(),
            command_template: command.into(),
            args: args.clone(),
            args_template: args,
            env: BTreeMap::new(),
            cwd: None,
            cwd_template: None,
            launch: Default::default(),
            inherit_env: Default::default(),
        }),
        timeout: Duration::from_secs(30),
        max_tools: mcp_pin::config::DEFAULT_MAX_TOOLS,
        max_listing_bytes: mcp_pin::config::DEFAULT_MAX_LISTING_BYTES,
        client: Default::default(),
        client_capabilities: vec![],
        client_capabilities_set: false,
        client_set: false,
        probe: ProbePolicy::ReadOnly,
        tools: BTreeMap::new(),
    }
}

/// Every tool called passes both probes; every tool not called is skipped; nothing fails.
fn assert_all_pass(tools: &BTreeMap<String, Value>, run: &ProbeRun) -> usize {
    let mut probed = 0;
    for (name, def) in tools {
        let call = find(run, name, ProbeKind::Call);
        if call[0].outcome == ProbeOutcome::Skipped {
            continue;
        }
        probed += 1;
        assert_pass(run, name, ProbeKind::Call);
        if def["inputSchema"].get("required").and_then(Value::as_array).is_some_and(|r| !r.is_empty()) {
            assert_pass(run, name, ProbeKind::Incomplete);
        }
    }
    assert_eq!(run.failures(), 0, "{:#?}", run.probes);
    probed
}

/// A Python (FastMCP) server: outputSchema without `$schema` (2020-12), structuredContent.
/// Skipped unless `mcp-server-time` (PyPI) is installed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_time_server_passes_end_to_end() {
    let Some(exe) = python_exe("mcp-server-time") else {
        common::skip("mcp-server-time not installed");
        return;
    };
    let mut server = plain_server("time", &exe, vec!["--local-timezone".into(), "UTC".into()]);
    server.tools.insert("get_current_time".into(), tool_cfg(Some(json!({"timezone": "UTC"})), None));
    server.tools.insert(
        "convert_time".into(),
        tool_cfg(Some(json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/London"})), None),
    );
    let (tools, run) = probe_server(&server, None).await;
    assert_eq!(assert_all_pass(&tools, &run), 2);
    for t in ["get_current_time", "convert_time"] {
        assert!(tools[t].get("outputSchema").is_some());
        assert!(run.shapes[t]["structuredContent"].is_object(), "{}", run.shapes[t]);
    }
}

/// Python `anyOf [X, {type: null}]` + `default: null` schemas; writers must not be called.
/// Skipped unless `mcp-server-git` (PyPI) and `git` are installed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_git_server_passes_end_to_end() {
    let (Some(exe), Some(_)) = (python_exe("mcp-server-git"), python_exe("git")) else {
        common::skip("mcp-server-git or git not installed");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let repo = std::fs::canonicalize(tmp.path()).unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=probe", "-c", "user.email=probe@example.invalid"])
            .args(args)
            .current_dir(&repo)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&["add", "a.txt"]);
    git(&["commit", "-qm", "init"]);
    let head_before = std::fs::read_to_string(repo.join(".git/HEAD")).unwrap();
    let r = repo.to_string_lossy().into_owned();
    let mut server = plain_server("git", &exe, vec!["--repository".into(), r.clone()]);
    for (t, a) in [
        ("git_status", json!({"repo_path": r})),
        ("git_diff_unstaged", json!({"repo_path": r})),
        ("git_diff_staged", json!({"repo_path": r})),
        ("git_diff", json!({"repo_path": r, "target": "HEAD"})),
        ("git_log", json!({"repo_path": r})),
        ("git_show", json!({"repo_path": r, "revision": "HEAD"})),
        ("git_branch", json!({"repo_path": r, "branch_type": "local"})),
    ] {
        server.tools.insert(t.into(), tool_cfg(Some(a), None));
    }
    let (tools, run) = probe_server(&server, None).await;
    for t in ["git_commit", "git_add", "git_reset", "git_create_branch", "git_checkout"] {
        if tools.contains_key(t) {
            assert_skipped(&run, t, "probe = \"all\"");
        }
    }
    assert!(assert_all_pass(&tools, &run) >= 5);
    assert_eq!(std::fs::read_to_string(repo.join(".git/HEAD")).unwrap(), head_before);
}
