//! `mcp-pin init --wrap --write` in every clone and every client: a project is wrapped, copied to
//! another folder, and the original removed; then each wrapped entry is started the way its
//! client starts it (the client's variables expanded by this test as the client would, its
//! working folder, the whole environment or the SDKs' small one) and the real fixture server's
//! tools are listed through the real proxy. `init --force` keeps the real command, `--unwrap
//! --write` gives the original file back byte for byte, and comments survive.

use crate::common::*;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Client {
    ClaudeCode,
    VsCode,
    Cursor,
}

/// What the user has where their client runs: their shell's variables and VS Code's prompts.
fn user_env() -> BTreeMap<&'static str, &'static str> {
    BTreeMap::from([("NOTES_KEY", "notes-key-0123456789"), ("DOCS_TOKEN", "docs-token-0123456789")])
}
const INPUT_NOTES_KEY: &str = "typed-into-vscode-0123";

/// `s` expanded as `client` expands a config's string.
fn expand(s: &str, client: Client, project: &Path) -> String {
    let env = user_env();
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let close = after.find('}').expect("a closed reference");
        let inner = &after[..close];
        let value = match (client, inner) {
            (Client::VsCode | Client::Cursor, "workspaceFolder") => project.display().to_string(),
            (Client::VsCode, i) if i.starts_with("input:") => {
                assert_eq!(i, "input:notes-key");
                INPUT_NOTES_KEY.to_string()
            }
            (Client::VsCode | Client::Cursor, i) if i.starts_with("env:") => {
                env.get(&i[4..]).unwrap_or(&"").to_string()
            }
            (Client::ClaudeCode, i) => {
                let (name, default) = i.split_once(":-").map_or((i, None), |(n, d)| (n, Some(d)));
                match (env.get(name), default) {
                    (Some(v), _) => v.to_string(),
                    (None, Some(d)) => d.to_string(),
                    (None, None) => panic!("Claude Code fails on an unset ${{{name}}}"),
                }
            }
            (c, i) => panic!("{c:?} does not expand ${{{i}}}"),
        };
        out.push_str(&value);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Start a wrapped entry as `client` does: in `cwd`, with the whole environment (the user's
/// variables included) or only the SDKs' small default one, plus the entry's `env`; `mcp-pin`
/// found on PATH. Returns the tools it lists.
fn list_through_entry(entry: &Value, client: Client, project: &Path, cwd: &Path, small: bool) -> Vec<String> {
    let x = |s: &Value| expand(s.as_str().unwrap(), client, project);
    let program = x(&entry["command"]);
    let args: Vec<String> = entry["args"].as_array().unwrap().iter().map(x).collect();
    let bin_dir = Path::new(pin_bin()).parent().unwrap().display().to_string();
    let mut cmd = Command::new(&program);
    cmd.args(&args).current_dir(cwd).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let path = format!("{bin_dir}:{}", std::env::var("PATH").unwrap_or_default());
    if small {
        cmd.env_clear();
        for v in ["HOME", "LOGNAME", "SHELL", "TERM", "USER"] {
            if let Ok(value) = std::env::var(v) {
                cmd.env(v, value);
            }
        }
    } else {
        cmd.envs(user_env());
    }
    cmd.env("PATH", &path).env_remove("CI").env_remove("GITHUB_ACTIONS");
    if let Some(env) = entry.get("env").and_then(Value::as_object) {
        for (k, v) in env {
            cmd.env(k, x(v));
        }
    }
    // The wrapped command is `mcp-pin`, found on PATH as the client finds it.
    if !program.contains('/') {
        cmd.env("PATH", &path);
        let found = std::env::split_paths(&path).map(|d| d.join(&program)).find(|p| p.is_file());
        assert!(found.is_some(), "{program} is not on PATH");
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{program}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut s);
        s
    });
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        let _ = writeln!(stdin, "{v}");
        let _ = stdin.flush();
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "wrap-test", "version": "0"}}}),
    );
    let mut tools = None;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
        let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
        if v["id"] == 1 {
            send(&mut stdin, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            send(&mut stdin, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}));
        } else if v["id"] == 2 {
            tools = Some(v);
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let stderr = err.join().unwrap_or_default();
    let tools = tools.unwrap_or_else(|| panic!("{client:?} ({program} {args:?}) listed nothing; stderr:\n{stderr}"));
    let names: Vec<String> = tools["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{client:?}: {tools}\nstderr:\n{stderr}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names
}

fn surface(tool: &str) -> Value {
    json!({"serverInfo": {"name": "fx", "version": "1.0.0"}, "tools": [
        {"name": tool, "description": format!("The {tool} tool."), "inputSchema": {"type": "object", "properties": {}}}
    ]})
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The client file of each client, for a stdio `notes` server (its surface file in the
/// project) and an HTTP `docs` server (its token in a header).
fn client_file(client: Client, url: &str) -> (&'static str, String) {
    let fx = serde_json::to_string(fixture_bin()).unwrap();
    match client {
        Client::ClaudeCode => (
            ".mcp.json",
            format!(
                r#"{{
  "mcpServers": {{
    "notes": {{
      "command": {fx},
      "args": ["--surface", "s.json"],
      "env": {{ "NOTES_KEY": "${{NOTES_KEY}}", "REGION": "${{REGION:-eu}}" }}
    }},
    "docs": {{
      "type": "http",
      "url": "{url}",
      "headers": {{ "Authorization": "Bearer ${{DOCS_TOKEN}}" }}
    }}
  }}
}}
"#
            ),
        ),
        Client::VsCode => (
            ".vscode/mcp.json",
            format!(
                r#"{{
  // The team's servers: keep this comment.
  "servers": {{
    "notes": {{
      "type": "stdio",
      "command": {fx},
      "args": ["--surface", "${{workspaceFolder}}/s.json"], // its surface
      "env": {{ "NOTES_KEY": "${{input:notes-key}}", "LOG_LEVEL": "debug" }}
    }},
    /* the docs service */
    "docs": {{ "type": "http", "url": "{url}", "headers": {{ "Authorization": "Bearer ${{env:DOCS_TOKEN}}" }} }},
  }},
  "inputs": [{{ "type": "promptString", "id": "notes-key", "description": "Notes key", "password": true }}]
}}
"#
            ),
        ),
        Client::Cursor => (
            ".cursor/mcp.json",
            format!(
                r#"{{
  // Cursor starts these outside the project.
  "mcpServers": {{
    "notes": {{
      "command": {fx},
      "args": ["--surface", "${{workspaceFolder}}/s.json"],
      "env": {{ "NOTES_KEY": "${{env:NOTES_KEY}}" }}
    }},
    "docs": {{
      "url": "{url}",
      "headers": {{ "Authorization": "Bearer ${{env:DOCS_TOKEN}}" }}
    }}
  }}
}}
"#
            ),
        ),
    }
}

/// The whole life of a wrapped project for one client. Checked by hand once: with the proxy no
/// longer starting the server in the config's folder (`ServerConfig::started_in` taken out of
/// `proxy::run`), the Cursor case listed nothing (its `./s.json` was looked for in Cursor's
/// working folder).
fn wrapped_project_works_in_another_clone(client: Client) {
    // The remote docs server lives outside the project (it is not copied with it).
    let remote = Project::new();
    remote.write_json("docs.json", &surface("search_docs"));
    let token = user_env()["DOCS_TOKEN"];
    let docs =
        HttpFixture::start(&remote.path("docs.json"), &["--require-header", &format!("Authorization: Bearer {token}")]);

    let a = Project::new();
    a.write_json("s.json", &surface("add_note"));
    let (file, original) = client_file(client, &docs.url);
    if let Some(folder) = Path::new(file).parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(a.path(&folder.display().to_string())).unwrap();
    }
    a.write(file, &original);
    let mut env: Vec<(&str, &str)> = user_env().into_iter().collect();
    env.push(("MCP_PIN_INPUT_NOTES_KEY", INPUT_NOTES_KEY));
    let out = a.run_env(&["init"], &env);
    assert!(out.status.success(), "{}", text(&out));
    let out = a.run_env(&["lock", "--no-probe"], &env);
    assert!(out.status.success(), "{}", text(&out));
    let out = a.run(&["init", "--wrap", "--write"]);
    assert!(out.status.success(), "{}", text(&out));
    let wrapped = a.read(file);
    assert!(!wrapped.contains(&a.dir.path().display().to_string()), "the author's folder is committed:\n{wrapped}");
    if client != Client::ClaudeCode {
        // Comments and the rest of the file stay where they were.
        for kept in ["// The team's servers: keep this comment.", "/* the docs service */", "\"inputs\": [{"]
            .iter()
            .filter(|k| original.contains(*k))
        {
            assert!(wrapped.contains(kept), "{kept} is gone:\n{wrapped}");
        }
        assert!(wrapped.contains("// Cursor") || client != Client::Cursor, "{wrapped}");
    }

    // Another clone: the original folder is gone.
    let b_root = tempfile::tempdir().unwrap();
    let b = b_root.path().join("clone");
    copy_dir(a.dir.path(), &b);
    drop(a);
    let doc: Value = serde_json::from_str(&strip_comments(&std::fs::read_to_string(b.join(file)).unwrap())).unwrap();
    let servers = if client == Client::VsCode { &doc["servers"] } else { &doc["mcpServers"] };
    // Claude Code and VS Code start servers in the project; Cursor does not.
    let elsewhere = tempfile::tempdir().unwrap();
    let cwd = if client == Client::Cursor { elsewhere.path().to_path_buf() } else { b.clone() };
    for (name, tool) in [("notes", "add_note"), ("docs", "search_docs")] {
        let entry = &servers[name];
        assert_eq!(entry["command"], "mcp-pin", "{entry}");
        for small in [false, true] {
            let names = list_through_entry(entry, client, &b, &cwd, small);
            assert_eq!(names, [tool], "{client:?} {name} (small env: {small}): {entry}");
        }
    }
    // The HTTP entry hands the token over, in the client's syntax.
    let token_ref = if client == Client::ClaudeCode { "${DOCS_TOKEN}" } else { "${env:DOCS_TOKEN}" };
    assert_eq!(servers["docs"]["env"], json!({"DOCS_TOKEN": token_ref}));

    // `init --force` after wrapping keeps the real command.
    let run_b = |args: &[&str]| {
        Command::new(pin_bin()).args(args).current_dir(&b).env("NO_COLOR", "1").env_remove("CI").output().unwrap()
    };
    let out = run_b(&["init", "--force"]);
    assert!(out.status.success(), "{}", text(&out));
    let toml = std::fs::read_to_string(b.join("mcp-pin.toml")).unwrap();
    assert!(toml.contains(&format!("command = {}", serde_json::to_string(fixture_bin()).unwrap())), "{toml}");
    assert!(!toml.contains("command = \"mcp-pin\"") && !toml.contains("\"proxy\""), "{toml}");
    // Without mcp-pin.toml, `init` reads the real command from the entries kept beside the file.
    std::fs::remove_file(b.join("mcp-pin.toml")).unwrap();
    let out = run_b(&["init"]);
    assert!(out.status.success(), "{}", text(&out));
    let toml = std::fs::read_to_string(b.join("mcp-pin.toml")).unwrap();
    assert!(toml.contains(&format!("command = {}", serde_json::to_string(fixture_bin()).unwrap())), "{toml}");
    assert!(toml.contains("[servers.docs]") && !toml.contains("\"proxy\""), "{toml}");

    // `--unwrap --write` gives the original back, byte for byte.
    let out = run_b(&["init", "--unwrap", "--write"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(b.join(file)).unwrap(), original);
    assert!(!b.join(format!("{file}.before-wrap.json")).exists());
}

fn strip_comments(s: &str) -> String {
    mcp_pin::config::clients::strip_jsonc(s)
}

#[test]
fn claude_code_wrapped_project_works_in_another_clone() {
    wrapped_project_works_in_another_clone(Client::ClaudeCode);
}

#[test]
fn vscode_wrapped_project_works_in_another_clone() {
    wrapped_project_works_in_another_clone(Client::VsCode);
}

#[test]
fn cursor_wrapped_project_works_in_another_clone() {
    wrapped_project_works_in_another_clone(Client::Cursor);
}

/// A default the user wrote in the client file (`${REGION:-eu}`) is a setting: `init` marks the
/// variable `not_secret`, and the proxy is handed `eu` without refusing it as a secret too short
/// to mask. Checked by hand once: with every reference read as a secret (the `not_secret`
/// marking and the written-default rule taken out of `Expander::read_ref`), `--wrap --write`
/// refused: "the proxy would be handed `REGION` = a value shorter than 4 characters".
#[test]
fn a_default_written_in_the_client_file_is_no_secret() {
    let p = Project::new();
    p.write_json("s.json", &surface("add_note"));
    let fx = serde_json::to_string(fixture_bin()).unwrap();
    p.write(
        ".mcp.json",
        &format!(
            r#"{{"mcpServers": {{"notes": {{"command": {fx}, "args": ["--surface", "s.json"], "env": {{"REGION": "${{REGION:-eu}}"}}}}}}}}"#
        ),
    );
    assert!(p.run(&["init"]).status.success());
    let toml = p.read("mcp-pin.toml");
    assert!(toml.contains("not_secret = [\"REGION\"]"), "{toml}");
    assert!(p.run(&["lock", "--no-probe"]).status.success());
    let out = p.run(&["init", "--wrap", "--write"]);
    assert!(out.status.success(), "{}", text(&out));
    let doc: Value = serde_json::from_str(&p.read(".mcp.json")).unwrap();
    let entry = &doc["mcpServers"]["notes"];
    assert_eq!(entry["env"], json!({"REGION": "${REGION:-eu}"}));
    assert_eq!(entry["args"][1], "mcp-pin.toml");
    assert_eq!(list_through_entry(entry, Client::ClaudeCode, p.dir.path(), p.dir.path(), true), ["add_note"]);
    // A short value the user sets is a setting too.
    let out = p.run_env(&["lock", "--no-probe"], &[("REGION", "us")]);
    assert!(out.status.success(), "{}", text(&out));
}

/// `--write` loads the config as the proxy will, with what each wrapped entry hands over, and
/// refuses to write an entry whose server cannot start, naming it and the fix.
#[test]
fn write_refuses_an_entry_whose_server_cannot_start() {
    let p = Project::new();
    p.write_json("s.json", &surface("add_note"));
    let fx = serde_json::to_string(fixture_bin()).unwrap();
    let original = format!(
        r#"{{"mcpServers": {{"notes": {{"command": {fx}, "args": ["--surface", "s.json"], "env": {{"API_KEY": "abc"}}}}}}}}"#
    );
    p.write(".mcp.json", &original);
    assert!(p.run(&["init"]).status.success());
    let out = p.run(&["init", "--wrap", "--write"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("`notes`") && said.contains("API_KEY") && said.contains("not_secret"), "{said}");
    assert_eq!(p.read(".mcp.json"), original, "nothing written");
    assert!(!p.path(".mcp.json.before-wrap.json").exists());
}

/// A user-level file (Claude Desktop's) is read on this machine only, by a client started from
/// a desktop whose PATH often lacks `~/.cargo/bin`: it names this binary and the config by
/// their absolute paths, and hands over literally what the entry gave (Claude Desktop expands
/// no variables).
#[test]
fn a_user_level_file_names_this_binary_and_the_config_absolutely() {
    let p = Project::new();
    p.write_json("s.json", &surface("add_note"));
    let home = tempfile::tempdir().unwrap();
    let desktop = home.path().join("claude_desktop_config.json");
    let fx = serde_json::to_string(fixture_bin()).unwrap();
    let surface_path = serde_json::to_string(&p.path("s.json")).unwrap();
    std::fs::write(
        &desktop,
        format!(
            r#"{{"mcpServers": {{"notes": {{"command": {fx}, "args": ["--surface", {surface_path}], "env": {{"NOTES_API_KEY": "sk-literal-0123456789"}}}}}}}}"#
        ),
    )
    .unwrap();
    let from = desktop.display().to_string();
    assert!(p.run(&["init", "--from", &from]).status.success());
    assert!(p.read("mcp-pin.toml").contains("${NOTES_API_KEY}"));
    let out = p.run_env(&["lock", "--no-probe"], &[("NOTES_API_KEY", "sk-literal-0123456789")]);
    assert!(out.status.success(), "{}", text(&out));
    let out = p.run(&["init", "--wrap", "--write", "--from", &from]);
    assert!(out.status.success(), "{}", text(&out));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&desktop).unwrap()).unwrap();
    let entry = &doc["mcpServers"]["notes"];
    let bin: PathBuf = std::fs::canonicalize(pin_bin()).unwrap();
    assert_eq!(entry["command"], bin.display().to_string());
    let config = std::fs::canonicalize(p.path("mcp-pin.toml")).unwrap();
    assert_eq!(entry["args"][1], config.display().to_string());
    assert_eq!(entry["env"], json!({"NOTES_API_KEY": "sk-literal-0123456789"}));
    let elsewhere = tempfile::tempdir().unwrap();
    assert_eq!(list_through_entry(entry, Client::ClaudeCode, p.dir.path(), elsewhere.path(), true), ["add_note"]);
}

/// A committed link that leads out of the project: `.vscode -> ../outside` (a folder on the
/// path), `.mcp.json -> ../outside/...` and `mcp-pin.toml -> ../outside/...` (the file itself).
/// `init`, `--wrap --write` and `--unwrap --write` refuse, naming the link and where it leads,
/// and write nothing outside (no rewritten config, no `.before-wrap.json`); a link that stays
/// inside the project is written through as before. Checked by hand: with `within_project`
/// taken out of `app::init`, `--wrap --write` succeeded through `.vscode` (writing outside the
/// project) and this test failed.
#[test]
fn init_never_writes_through_a_link_that_leaves_the_project() {
    let p = Project::new();
    let outside = tempfile::tempdir_in(p.dir.path().parent().unwrap()).unwrap();
    let away = format!("../{}", outside.path().file_name().unwrap().to_str().unwrap());
    p.write_json("s.json", &surface("add_note"));
    let fx = serde_json::to_string(fixture_bin()).unwrap();
    let vscode =
        format!(r#"{{"servers": {{"notes": {{"type": "stdio", "command": {fx}, "args": ["--surface", "s.json"]}}}}}}"#);
    std::fs::write(outside.path().join("mcp.json"), &vscode).unwrap();
    std::os::unix::fs::symlink(&away, p.path(".vscode")).unwrap();
    // Reading through the link is fine: `init` writes mcp-pin.toml in the project.
    let out = p.run(&["init"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(p.run(&["lock", "--no-probe"]).status.success());
    let out = p.run(&["init", "--wrap", "--write"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    let leads = std::fs::canonicalize(outside.path()).unwrap().display().to_string();
    assert!(said.contains("refusing to write") && said.contains(".vscode -> ../") && said.contains(&leads), "{said}");
    assert_eq!(std::fs::read_to_string(outside.path().join("mcp.json")).unwrap(), vscode, "nothing written outside");
    assert!(!outside.path().join("mcp.json.before-wrap.json").exists());

    // The file itself a link: `.mcp.json` wrapped in the project, then moved outside behind a link.
    let p = Project::new();
    p.write_json("s.json", &surface("add_note"));
    let outside = tempfile::tempdir_in(p.dir.path().parent().unwrap()).unwrap();
    let away = format!("../{}", outside.path().file_name().unwrap().to_str().unwrap());
    p.write(
        ".mcp.json",
        &format!(r#"{{"mcpServers": {{"notes": {{"command": {fx}, "args": ["--surface", "s.json"]}}}}}}"#),
    );
    assert!(p.run(&["init"]).status.success());
    assert!(p.run(&["lock", "--no-probe"]).status.success());
    let out = p.run(&["init", "--wrap", "--write"]);
    assert!(out.status.success(), "{}", text(&out));
    let wrapped = p.read(".mcp.json");
    std::fs::rename(p.path(".mcp.json"), outside.path().join("claude.json")).unwrap();
    std::os::unix::fs::symlink(format!("{away}/claude.json"), p.path(".mcp.json")).unwrap();
    let out = p.run(&["init", "--unwrap", "--write"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains(".mcp.json -> ../"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(outside.path().join("claude.json")).unwrap(), wrapped);
    assert!(p.path(".mcp.json.before-wrap.json").exists(), "the kept entries were not removed");
    // `init --force` writing mcp-pin.toml, itself a link out.
    std::fs::rename(p.path("mcp-pin.toml"), outside.path().join("pin.toml")).unwrap();
    std::os::unix::fs::symlink(format!("{away}/pin.toml"), p.path("mcp-pin.toml")).unwrap();
    let toml = std::fs::read_to_string(outside.path().join("pin.toml")).unwrap();
    let out = p.run(&["init", "--force"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("mcp-pin.toml -> ../"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(outside.path().join("pin.toml")).unwrap(), toml);

    // A link inside the project is no reason to refuse.
    let p = Project::new();
    p.write_json("s.json", &surface("add_note"));
    std::fs::create_dir(p.path("conf")).unwrap();
    std::fs::write(p.path("conf/mcp.json"), &vscode).unwrap();
    std::os::unix::fs::symlink("conf", p.path(".vscode")).unwrap();
    assert!(p.run(&["init"]).status.success());
    assert!(p.run(&["lock", "--no-probe"]).status.success());
    let out = p.run(&["init", "--wrap", "--write"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(p.read("conf/mcp.json").contains("proxy"));
    assert!(p.path("conf/mcp.json.before-wrap.json").exists());
}
