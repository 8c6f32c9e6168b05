//! Issue 16: what a new user meets in the first hour works as the docs say. Each test runs the
//! real binary against the real fixture server.

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

fn surface() -> Value {
    json!({
        "serverInfo": {"name": "fixture", "version": "1.0.0"},
        "tools": [
            {
                "name": "fetch",
                "description": "Fetch one record by id.",
                "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
            },
            {
                "name": "search",
                "description": "Search the catalogue.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}, "status": {"type": "string"}},
                    "required": ["query", "status"]
                }
            }
        ]
    })
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `github` reads `${GITHUB_TOKEN}`, `notes` reads nothing.
fn two_servers() -> Project {
    let p = Project::new();
    p.write_json("gh.json", &surface());
    p.write_json("notes.json", &surface());
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.github]\ncommand = {fx:?}\nargs = [\"--surface\", \"gh.json\"]\nenv = {{ GITHUB_TOKEN = \"${{GITHUB_TOKEN}}\" }}\n\n\
             [servers.notes]\ncommand = {fx:?}\nargs = [\"--surface\", \"notes.json\"]\n",
            fx = fixture_bin()
        ),
    );
    let out = p.run_env(&["lock", "--no-probe"], &[("GITHUB_TOKEN", "ghp_only-the-github-job-has-it")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    p
}

fn names(report: &Value) -> Vec<String> {
    report["servers"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn server_and_shard_need_only_the_selected_servers_variables() {
    let p = two_servers();
    // The documented drift cron: one job per server, each with only its own secrets.
    for sel in [["--server", "notes"], ["--shard", "2/2"]] {
        let out = p.run(&["check", "--no-probe", "--fail-on", "never", "--format", "json", sel[0], sel[1]]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(names(&report), ["notes"], "{report:#}");
        // Under CI too: notes reads no variable, so nothing needs allowing.
        let out = p.run_env(&["check", "--no-probe", sel[0], sel[1]], &[("CI", "true")]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }
    // The selected server's variables are still required, and still policed under CI.
    let out = p.run(&["check", "--no-probe", "--server", "github"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr(&out).contains("`GITHUB_TOKEN` is not set"), "{}", text(&out));
    let out =
        p.run_env(&["check", "--no-probe", "--server", "github"], &[("CI", "true"), ("GITHUB_TOKEN", "ghp_abcdefgh")]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr(&out).contains("--allow-env GITHUB_TOKEN"), "{}", text(&out));
    let out = p.run_env(&["check", "--no-probe", "--server", "github"], &[("GITHUB_TOKEN", "abc")]);
    assert!(stderr(&out).contains("too short to be masked"), "{}", text(&out));
    // A whole run needs every server's variables.
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr(&out).contains("server `github`"), "{}", text(&out));
    // A typo in --server gets a did-you-mean.
    let out = p.run(&["check", "--server", "note"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("did you mean `notes`?"), "{}", text(&out));
}

#[test]
fn lock_tool_typo_is_an_error_with_did_you_mean() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.stdio_config(&[("cat", "surface.json")]);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let before = p.read("mcp.lock");
    let mut s = surface();
    s["tools"][1]["inputSchema"]["required"] = json!(["query"]);
    p.write_json("surface.json", &s);
    let out = p.run(&["lock", "--no-probe", "--tool", "serch"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        stderr(&out).contains("no tool `serch`") && stderr(&out).contains("did you mean `search`?"),
        "{}",
        text(&out)
    );
    assert_eq!(p.read("mcp.lock"), before, "nothing written");
    let out = p.run(&["lock", "--no-probe", "--tool", "search"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_ne!(p.read("mcp.lock"), before);
}

#[test]
fn an_ad_hoc_server_never_touches_a_projects_lock() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.stdio_config(&[("cat", "surface.json")]);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let before = p.read("mcp.lock");
    let fx = fixture_bin();
    let out = p.run(&["lock", "--no-probe", "--", fx, "--surface", "surface.json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr(&out).contains("--lockfile"), "says how to ask for it: {}", text(&out));
    assert_eq!(p.read("mcp.lock"), before);
    // Asked for: its own lockfile.
    let out = p.run(&["lock", "--no-probe", "--lockfile", "adhoc.lock", "--", fx, "--surface", "surface.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(p.read("adhoc.lock").contains("mcp-pin-fixture"));
    assert_eq!(p.read("mcp.lock"), before);
}

#[test]
fn the_configured_timeout_bounds_a_hung_handshake() {
    let p = Project::new();
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/surfaces/fault-neverAnswer.json"),
        p.path("hung.json"),
    )
    .unwrap();
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.hung]\ncommand = {:?}\nargs = [\"--surface\", \"hung.json\"]\ntimeout = \"2s\"\n",
            fixture_bin()
        ),
    );
    let started = Instant::now();
    let out = p.run(&["lock", "--no-probe"]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // server/discover gets 2 s, then a plain initialize 2 s: never rmcp's 10 s on top.
    assert!(took < Duration::from_secs(8), "took {took:?}: {}", text(&out));
    let err = stderr(&out);
    assert!(err.contains("no answer within 2s") && err.contains("raise `timeout`"), "{}", text(&out));
}

#[test]
fn small_things_of_the_first_hour() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.stdio_config(&[("cat", "surface.json")]);
    // --jobs 0 would never start a server.
    let out = p.run(&["check", "--jobs", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr(&out).contains("--jobs"), "{}", text(&out));
    // explain has a did-you-mean.
    let out = p.run(&["explain", "required-remove"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("did you mean `required-removed`?"), "{}", text(&out));
    // diff on a missing file does not ask to lock.
    let out = p.run(&["diff", "old.lock", "new.lock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("mcp-pin lock") && stderr(&out).contains("git show"), "{}", text(&out));
    // init and diff do not list options they ignore; lock, check and review do.
    for cmd in ["init", "diff", "explain", "completions"] {
        let help = String::from_utf8_lossy(&p.run(&[cmd, "--help"]).stdout).into_owned();
        assert!(!help.contains("--shard") && !help.contains("--jobs") && !help.contains("--server"), "{cmd}: {help}");
    }
    for cmd in ["lock", "check", "review"] {
        let help = String::from_utf8_lossy(&p.run(&[cmd, "--help"]).stdout).into_owned();
        assert!(help.contains("--shard") && help.contains("--jobs") && help.contains("--server"), "{cmd}: {help}");
    }
}

#[test]
fn another_server_name_leads_the_report() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.stdio_config(&[("cat", "surface.json")]);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let mut s = surface();
    s["serverInfo"]["name"] = json!("someone-else");
    p.write_json("surface.json", &s);
    let (_, report) = p.check_json(&["--no-probe"]);
    let notes = report["servers"][0]["notes"].as_array().unwrap();
    let first = notes.first().and_then(Value::as_str).unwrap_or("");
    assert!(first.contains("\"fixture\"") && first.contains("\"someone-else\""), "{report:#}");
    // And the human report shows it right under the server's first line.
    let out = p.run(&["check", "--no-probe"]);
    let human = String::from_utf8_lossy(&out.stdout).into_owned();
    let second = human.lines().nth(1).unwrap_or("");
    assert!(second.contains("note:") && second.contains("someone-else"), "{human}");
}

#[test]
fn init_skips_what_it_cannot_speak_keeps_env_files_and_asks_for_real_secrets_only() {
    let p = Project::new();
    std::fs::create_dir(p.path(".cursor")).unwrap();
    p.write(".env", "API_TOKEN=tok-from-the-env-file\nLOG_LEVEL=info\n");
    p.write(
        ".cursor/mcp.json",
        &json!({"mcpServers": {
            "old": {"type": "sse", "url": "https://example.com/sse"},
            "local": {
                "command": fixture_bin(),
                "args": ["--surface", "surface.json", "--note", "${env:HOME}/x"],
                "envFile": "${workspaceFolder}/.env",
                "env": {"OTHER_TOKEN": "${env:OTHER_TOKEN}"}
            }
        }})
        .to_string(),
    );
    p.write_json("surface.json", &surface());
    let out = p.run(&["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(stderr(&out).contains("`old` is skipped"), "says so: {}", text(&out));
    let toml = p.read("mcp-pin.toml");
    assert!(toml.contains("# [servers.old] is not here") && toml.contains("sse"), "{toml}");
    assert!(toml.contains("env_file = \"./.env\""), "{toml}");
    assert!(!toml.contains("tok-from-the-env-file") && !toml.contains("API_TOKEN"), "{toml}");
    let asked: Vec<&str> = toml
        .lines()
        .skip_while(|l| !l.starts_with("# Set these"))
        .skip(1)
        .take_while(|l| l.starts_with("#   "))
        .map(|l| l.trim_start_matches("#   "))
        .collect();
    assert_eq!(asked, ["OTHER_TOKEN"], "HOME is no secret to set: {toml}");
    // The written config works: the env file's values reach the server, masked in output.
    let out = p.run_env(&["lock", "--no-probe"], &[("OTHER_TOKEN", "other-secret-value")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!p.read("mcp.lock").contains("tok-from-the-env-file"));
    // Under CI an env file outside the project is refused.
    let toml = p.read("mcp-pin.toml").replace("env_file = \"./.env\"", "env_file = \"../elsewhere.env\"");
    p.write("mcp-pin.toml", &toml);
    let out = p.run_env(
        &["check", "--no-probe"],
        &[("CI", "true"), ("MCP_PIN_ALLOW_ENV", "OTHER_TOKEN"), ("OTHER_TOKEN", "other-secret-value")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr(&out).contains("inside the config's folder"), "{}", text(&out));
}

/// Whether `bash` is there to run the completion script in (a fresh machine has it; say so if not).
fn bash() -> Option<&'static str> {
    let ok = Command::new("bash").arg("-c").arg("exit 0").status().map(|s| s.success()).unwrap_or(false);
    if !ok {
        skip("bash is not installed; the bash completion script was not exercised");
        return None;
    }
    Some("bash")
}

/// What bash completes for `line` (the word under the cursor is its last, possibly empty, word).
fn complete(script: &std::path::Path, line: &str) -> Vec<String> {
    let mut words: Vec<&str> = line.split(' ').collect();
    if words.is_empty() {
        words.push("");
    }
    let cword = words.len() - 1;
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let prog = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; \
         _mcp__pin mcp-pin '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words[cword],
        if cword > 0 { words[cword - 1] } else { "" }
    );
    let out = Command::new("bash").arg("--norc").arg("-c").arg(&prog).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).filter(|l| !l.is_empty()).collect()
}

#[test]
fn bash_completion_completes_options_and_hides_the_adapter() {
    if bash().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("mcp-pin.bash");
    let out = Command::new(pin_bin()).args(["completions", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    std::fs::write(&script, &out.stdout).unwrap();
    let got = complete(&script, "mcp-pin check --f");
    assert_eq!(got, ["--fail-on", "--format"]);
    let got = complete(&script, "mcp-pin lock --t");
    assert_eq!(got, ["--tool"]);
    let got = complete(&script, "mcp-pin check --format ");
    assert!(got.contains(&"json".to_string()) && got.contains(&"sarif".to_string()), "{got:?}");
    let got = complete(&script, "mcp-pin report merge --fail");
    assert_eq!(got, ["--fail-on"]);
    let got = complete(&script, "mcp-pin ");
    for c in ["lock", "check", "review", "diff", "init", "explain", "completions", "report"] {
        assert!(got.contains(&c.to_string()), "{c} in {got:?}");
    }
    assert!(!got.iter().any(|c| c.contains("conformance")), "{got:?}");
    let got = complete(&script, "mcp-pin init --");
    assert!(got.contains(&"--force".to_string()) && !got.contains(&"--shard".to_string()), "{got:?}");
    // The other shells' scripts do not offer the hidden adapter either.
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = Command::new(pin_bin()).args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(!String::from_utf8_lossy(&out.stdout).contains("conformance"), "{shell}");
    }
}

/// Under CI every variable the run must allow is named in one run, with the one line to paste
/// (`--allow-env A,B,C` and the Action's input), across servers and within one; an unset
/// `${REGION:-eu}` uses its default and needs no allow. It fails on the code before this change
/// (that named only `TOKEN_A`, and `REGION` too needed an allow).
#[test]
fn ci_names_every_variable_to_allow_at_once() {
    let p = Project::new();
    p.write_json("a.json", &surface());
    p.write_json("b.json", &surface());
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.a]\ncommand = {fx:?}\nargs = [\"--surface\", \"a.json\"]\nenv = {{ A = \"${{TOKEN_A}}\", B = \"${{TOKEN_B}}\" }}\n\n\
             [servers.b]\ncommand = {fx:?}\nargs = [\"--surface\", \"b.json\", \"--note\", \"${{REGION:-eu}}\"]\nenv = {{ C = \"${{TOKEN_C}}\" }}\n",
            fx = fixture_bin()
        ),
    );
    let env = [("TOKEN_A", "secret-value-aaaa"), ("TOKEN_B", "secret-value-bbbb"), ("TOKEN_C", "secret-value-cccc")];
    let mut ci = env.to_vec();
    ci.push(("CI", "true"));
    let out = p.run_env(&["lock", "--no-probe"], &ci);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = stderr(&out);
    for v in ["TOKEN_A", "TOKEN_B", "TOKEN_C"] {
        assert!(err.contains(&format!("${{{v}}}")), "{v} named: {err}");
    }
    assert!(
        err.contains("--allow-env TOKEN_A,TOKEN_B,TOKEN_C") && err.contains("allow-env: TOKEN_A,TOKEN_B,TOKEN_C"),
        "{err}"
    );
    assert!(!err.contains("REGION"), "an unset variable with a default needs no allow: {err}");
    assert!(!err.contains("secret-value"), "{err}");
    // The line pasted: the run goes through.
    let out = p.run_env(&["lock", "--no-probe", "--allow-env", "TOKEN_A,TOKEN_B,TOKEN_C"], &ci);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // A default that is set is a value read: then it needs an allow like any other.
    ci.push(("REGION", "us-east-1"));
    let out = p.run_env(&["check", "--no-probe", "--allow-env", "TOKEN_A,TOKEN_B,TOKEN_C"], &ci);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(stderr(&out).contains("--allow-env REGION"), "{}", text(&out));
}

/// The same for a client config (`.mcp.json`): every variable of every server in one run, an
/// unset `${REGION:-eu}` needing none, `${input:ID}` named by the variable that stands in for it;
/// and one server's other mistake beside them. It fails on the code before this change (that
/// named only `TOKEN_A`).
#[test]
fn ci_names_every_variable_of_a_client_config_at_once() {
    let p = Project::new();
    p.write_json("a.json", &surface());
    p.write_json("b.json", &surface());
    let fx = fixture_bin();
    p.write_json(
        ".mcp.json",
        &serde_json::json!({"mcpServers": {
            "a": {"command": fx, "args": ["--surface", "a.json"], "env": {"A": "${TOKEN_A}", "B": "${env:TOKEN_B}"}},
            "b": {"command": fx, "args": ["--surface", "b.json", "--note", "${REGION:-eu}"], "env": {"C": "${TOKEN_C}", "D": "${input:api-key}"}},
            "c": {"command": fx, "args": "--surface c.json"}
        }}),
    );
    let env = [
        ("TOKEN_A", "secret-value-aaaa"),
        ("TOKEN_B", "secret-value-bbbb"),
        ("TOKEN_C", "secret-value-cccc"),
        ("MCP_PIN_INPUT_API_KEY", "secret-value-dddd"),
    ];
    let mut ci = env.to_vec();
    ci.push(("CI", "true"));
    let out = p.run_env(&["lock", "--no-probe"], &ci);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = stderr(&out);
    let all = "TOKEN_A,TOKEN_B,TOKEN_C,MCP_PIN_INPUT_API_KEY";
    assert!(err.contains(&format!("--allow-env {all}")) && err.contains(&format!("allow-env: {all}")), "{err}");
    assert!(err.contains("server `c`") && err.contains("`args` must be an array"), "the other mistake too: {err}");
    assert!(!err.contains("REGION"), "an unset variable with a default needs no allow: {err}");
    assert!(!err.contains("secret-value"), "{err}");
}

/// Config mistakes are all reported in one run: a misspelled key, `timeout = "30"` and an unknown
/// `probe` value in one server, a bad `probe` in another, an unknown `[proxy]` key. It fails on
/// the code before this change (that reported only the first).
#[test]
fn every_config_mistake_is_reported_in_one_run() {
    let p = Project::new();
    p.write(
        "mcp-pin.toml",
        "[servers.a]\ncommand = \"x\"\ntmeout = \"3s\"\ntimeout = \"30\"\nprobe = \"sandboxed\"\n\n\
         [servers.b]\ncommand = \"y\"\nprobe = \"everything\"\n\n[proxy]\nnew_tool = \"hide\"\n",
    );
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = stderr(&out);
    assert!(err.contains("5 problems in the config"), "{err}");
    for needle in
        ["`tmeout`", "\"30\"", "\"sandboxed\"", "\"everything\"", "`new_tool`", "mcp-pin.toml:3:", "mcp-pin.toml:4:"]
    {
        assert!(err.contains(needle), "{needle}: {err}");
    }
}

/// `init` lists every variable the config reads, a defaulted one marked optional, with the
/// `--allow-env` line CI needs; its header names the client file, never the author's absolute
/// path. It fails on the code before this change (`${REGION:-eu}` was left out, the header held
/// the path).
#[test]
fn init_lists_every_variable_and_no_absolute_path() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.write(
        ".mcp.json",
        &json!({"mcpServers": {"local": {
            "command": fixture_bin(),
            "args": ["--surface", "surface.json", "--note", "${REGION:-eu}"],
            "env": {"DOCS_TOKEN": "${DOCS_TOKEN}"}
        }}})
        .to_string(),
    );
    let out = p.run(&["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let toml = p.read("mcp-pin.toml");
    let dir = p.dir.path().display().to_string();
    assert!(!toml.contains(&dir), "no absolute path: {toml}");
    assert!(toml.contains("from .mcp.json"), "{toml}");
    assert!(toml.contains("#   DOCS_TOKEN\n"), "{toml}");
    assert!(toml.contains("#   REGION (optional"), "{toml}");
    assert!(toml.contains("--allow-env DOCS_TOKEN,REGION"), "{toml}");
}

/// A lockfile git left conflict markers in is called a merge conflict, and the hint never says
/// to delete it and lock (which would pin the live surface unreviewed).
#[test]
fn a_lockfile_with_conflict_markers_is_a_merge_conflict() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.stdio_config(&[("cat", "surface.json")]);
    p.write(
        "mcp.lock",
        "{\n<<<<<<< HEAD\n  \"lockfileVersion\": 1,\n=======\n  \"lockfileVersion\": 1,\n>>>>>>> other\n  \"servers\": {}\n}\n",
    );
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = stderr(&out);
    assert!(err.contains("merge conflict markers (line 2"), "{err}");
    assert!(err.contains("git checkout --ours mcp.lock") && !err.contains("delete it"), "{err}");
}

/// The advisory lock `lock` holds beside the lockfile is gone once it has written: nothing for
/// `git status` to show.
#[test]
fn lock_leaves_no_sidecar() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.stdio_config(&[("cat", "surface.json")]);
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(p.path("mcp.lock").exists());
    assert!(!p.path(".mcp.lock.lock").exists(), "the sidecar is removed");
    // And a second lock still works (it takes a fresh one).
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// `check --json` says to use `--format json`, not clap's `-- --json` (which would make
/// `--json` an ad-hoc server's command).
#[test]
fn check_json_flag_points_to_format_json() {
    let p = Project::new();
    let out = p.run(&["check", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = stderr(&out);
    assert!(err.contains("--format json") && !err.contains("-- --json"), "{err}");
}

/// `lock -q` prints no line per probe (only warnings); without `-q` the probes are summed up. It
/// fails on the code before this change (`-q` printed every probe line).
#[test]
fn lock_quiet_prints_no_probe_lines() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    p.stdio_config(&[("cat", "surface.json")]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(stderr(&out).contains("probes:"), "{}", text(&out));
    let out = p.run(&["lock", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!stderr(&out).contains("probes:") && !stderr(&out).contains("passed:"), "{}", text(&out));
}

/// A server that is down is said in one sentence a user acts on: the address and why it got no
/// answer, typed from the operating system's error, without the chain of wrappers around it
/// (rmcp's "Send message error … when send initialize request", reqwest's "client error
/// (Connect)"). It fails on the code before this change (that printed the whole chain).
#[test]
fn a_server_that_is_down_is_one_plain_sentence() {
    let p = Project::new();
    p.write_json("s.json", &surface());
    let server = HttpFixture::start(&p.path("s.json"), &[]);
    let url = server.url.clone();
    p.write("mcp-pin.toml", &format!("[servers.web]\nurl = \"{url}\"\n"));
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    drop(server); // the server goes down; its port has nothing listening
    let origin = url.trim_end_matches("/mcp").to_string();
    for cmd in ["check", "lock"] {
        let out = p.run(&[cmd, "--no-probe"]);
        assert_ne!(out.status.code(), Some(0), "{}", text(&out));
        let err = text(&out);
        assert!(err.contains(&format!("cannot reach {origin}: the connection was refused")), "{cmd}: {err}");
        assert!(err.contains("Is the server running, and is `url` right?"), "{cmd}: {err}");
        for wrapper in ["Send message error", "when send initialize", "client error (Connect)", "tcp connect error"] {
            assert!(!err.contains(wrapper), "{cmd}: {wrapper}: {err}");
        }
    }
}
