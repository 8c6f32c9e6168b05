//! `server-launch-changed` (RULES.md, "Server"), through the real binary and the fixture server:
//! the command, args, working folder or url a server is started with, as written in the config,
//! against the one its lock entry was pinned with. A pull request that swaps a server's program
//! while it serves the same tools is one loud finding; moving the project to another folder (or
//! machine: other values behind `${VAR}`) is nothing; a lock from before the launch was recorded
//! reports nothing until the next `lock`.
//!
//! Checked by hand once with the mechanism taken out: with check.rs passing no launch changes to
//! the judgement, `each_launch_change_is_one_loud_finding`, `a_changed_url_is_one_loud_finding`
//! and the last step of `a_lock_without_a_launch_reports_nothing_until_the_next_lock` fail; with
//! the builder recording the expanded args instead of the written ones,
//! `moving_the_project_reports_nothing` fails.

use crate::common;

use common::*;
use serde_json::{json, Value};

fn surface() -> Value {
    json!({
        "serverInfo": {"name": "docs", "version": "1.0.0"},
        "tools": [{
            "name": "search",
            "description": "Search the docs.",
            "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
        }]
    })
}

/// A note long enough to be read from the environment (a value too short to mask is refused).
const NOTE: (&str, &str) = ("NOTE", "written-on-machine-one");

/// `mcp-pin.toml` with one stdio server `docs`: `launch` holds its `command`/`args`/`cwd` lines.
fn toml(p: &Project, launch: &str) {
    p.write("mcp-pin.toml", &format!("[servers.docs]\n{launch}timeout = \"10s\"\n"));
}

/// The fixture as written in the config: its absolute path (outside the project, the same
/// wherever the project is), with a relative surface file and a `${VAR}` argument.
fn fixture_lines(extra_args: &str) -> String {
    format!(
        "command = {:?}\nargs = [\"--surface\", \"surface.json\", \"--note\", \"${{NOTE}}\"{extra_args}]\n",
        fixture_bin()
    )
}

fn check(p: &Project, env: &[(&str, &str)]) -> (i32, Value) {
    let out = p.run_env(&["check", "--no-probe", "--format", "json"], env);
    let code = out.status.code().unwrap_or(-1);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (code, v)
}

fn lock(p: &Project, env: &[(&str, &str)]) {
    let out = p.run_env(&["lock", "--no-probe"], env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// The one change of a report, which must be the server's `server-launch-changed`, loud, with
/// the gate passed (exit 0); its message.
fn one_launch_change(code: i32, report: &Value) -> String {
    assert_eq!(
        changes(report),
        [("docs".into(), String::new(), "server-launch-changed".into(), "/launch".into())],
        "{report:#}"
    );
    let c = &report["servers"][0]["changes"][0];
    assert_eq!(c["class"], "loud", "{report:#}");
    assert_eq!(code, 0, "a loud change passes the default gate: {report:#}");
    c["message"].as_str().unwrap().to_string()
}

#[test]
fn each_launch_change_is_one_loud_finding() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    std::fs::create_dir(p.path("sub")).unwrap();
    p.write_json("sub/surface.json", &surface());
    // Another program that serves the same tools: a link to the fixture in the project.
    std::os::unix::fs::symlink(fixture_bin(), p.path("server")).unwrap();
    let base = fixture_lines("");
    toml(&p, &base);
    lock(&p, &[NOTE]);
    let pinned: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    // Recorded as written: `${NOTE}` stays a reference, its value is nowhere in the lock.
    assert_eq!(
        pinned["servers"]["docs"]["launch"],
        json!({"command": fixture_bin(), "args": ["--surface", "surface.json", "--note", "${NOTE}"]})
    );
    assert!(!p.read("mcp.lock").contains(NOTE.1));
    let (code, report) = check(&p, &[NOTE]);
    assert_eq!((code, changes(&report)), (0, vec![]), "{report:#}");

    let cases = [
        (
            base.replacen(&format!("command = {:?}", fixture_bin()), "command = \"./server\"", 1),
            format!("command changed from {:?} to \"./server\"", fixture_bin()),
        ),
        (
            fixture_lines(", \"--start-delay-ms\", \"1\""),
            r#"args changed from ["--surface", "surface.json", "--note", "${NOTE}"] to ["--surface", "surface.json", "--note", "${NOTE}", "--start-delay-ms", "1"]"#.to_string(),
        ),
        (format!("{base}cwd = \"sub\"\n"), r#"working folder (cwd) changed from (none) to "sub""#.to_string()),
    ];
    for (config, says) in cases {
        toml(&p, &config);
        let (code, report) = check(&p, &[NOTE]);
        let message = one_launch_change(code, &report);
        assert!(message.contains(&says), "{message}\nwant: {says}");
        // The human report names it too.
        let out = p.run_env(&["check", "--no-probe"], &[NOTE]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("server-launch-changed"), "{}", text(&out));
    }
    // `lock` accepts it: recorded, and the next check is clean.
    lock(&p, &[NOTE]);
    let (code, report) = check(&p, &[NOTE]);
    assert_eq!((code, changes(&report)), (0, vec![]), "{report:#}");
}

#[test]
fn a_changed_url_is_one_loud_finding() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    let (a, b) = (HttpFixture::start(&p.path("surface.json"), &[]), HttpFixture::start(&p.path("surface.json"), &[]));
    toml(&p, &format!("url = {:?}\n", a.url));
    lock(&p, &[]);
    let pinned: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert_eq!(pinned["servers"]["docs"]["launch"], json!({"url": a.url}));
    toml(&p, &format!("url = {:?}\n", b.url));
    let (code, report) = check(&p, &[]);
    let message = one_launch_change(code, &report);
    assert!(message.contains(&format!("url changed from {:?} to {:?}", a.url, b.url)), "{message}");
}

/// Lock in one folder, copy the project to another (and run with another value behind
/// `${NOTE}`, as another machine would): nothing changed. The same for a VS Code config whose
/// surface is `${workspaceFolder}/surface.json` (another path once resolved, the same as written).
#[test]
fn moving_the_project_reports_nothing() {
    let vscode = json!({"servers": {"docs": {
        "command": fixture_bin(),
        "args": ["--surface", "${workspaceFolder}/surface.json", "--note", "${env:NOTE}"]
    }}});
    for config in ["toml", "vscode"] {
        let p = Project::new();
        p.write_json("surface.json", &surface());
        if config == "toml" {
            toml(&p, &format!("{}cwd = \".\"\n", fixture_lines("")));
        } else {
            std::fs::create_dir(p.path(".vscode")).unwrap();
            p.write_json(".vscode/mcp.json", &vscode);
        }
        lock(&p, &[NOTE]);
        assert!(p.read("mcp.lock").contains("\"launch\""), "{}", p.read("mcp.lock"));
        let moved = Project::new();
        copy_tree(p.dir.path(), moved.dir.path());
        drop(p); // the first folder is gone
        let (code, report) = check(&moved, &[("NOTE", "another-machine-another-value")]);
        assert_eq!((code, changes(&report)), (0, vec![]), "{config}: {report:#}");
    }
}

/// A lock written before mcp-pin recorded the launch has no `launch`: the first check after the
/// upgrade reports nothing, even with a changed launch and the strict gate; the next `lock`
/// records it, and from then on a change is reported.
#[test]
fn a_lock_without_a_launch_reports_nothing_until_the_next_lock() {
    let p = Project::new();
    p.write_json("surface.json", &surface());
    toml(&p, &fixture_lines(""));
    lock(&p, &[NOTE]);
    // The lock as the previous mcp-pin wrote it: the same text without the `launch` lines.
    let old = without_launch(&p.read("mcp.lock"));
    assert!(!old.contains("\"launch\""), "{old}");
    p.write("mcp.lock", &old);
    toml(&p, &fixture_lines(", \"--start-delay-ms\", \"1\""));
    let out = p.run_env(&["check", "--no-probe", "--format", "json", "--fail-on", "loud"], &[NOTE]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    assert_eq!((out.status.code(), changes(&report)), (Some(0), vec![]), "{report:#}");
    lock(&p, &[NOTE]);
    let pinned: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert_eq!(pinned["servers"]["docs"]["launch"]["args"][4], "--start-delay-ms", "{pinned:#}");
    let (code, report) = check(&p, &[NOTE]);
    assert_eq!((code, changes(&report)), (0, vec![]), "{report:#}");
    toml(&p, &fixture_lines(""));
    let (code, report) = check(&p, &[NOTE]);
    let message = one_launch_change(code, &report);
    assert!(message.contains("args changed from"), "{message}");
}

/// `text` without the lines of its `"launch": {...}` objects (the canonical writer puts each on
/// lines of its own at one indent).
fn without_launch(text: &str) -> String {
    let mut out = String::new();
    let mut skipping: Option<String> = None;
    for line in text.lines() {
        if let Some(indent) = &skipping {
            if line.starts_with(&format!("{indent}}}")) {
                skipping = None;
            }
            continue;
        }
        if line.trim_start().starts_with("\"launch\": {") {
            let indent = &line[..line.len() - line.trim_start().len()];
            if !line.trim_end().ends_with('}') && !line.trim_end().ends_with("},") {
                skipping = Some(indent.to_string());
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// `mcp.lock.example` (with its `launch`, added when the field was) reads and is written back
/// byte for byte: it is what `lock` writes.
#[test]
fn the_example_lock_is_what_lock_writes() {
    let text = include_str!("../../mcp.lock.example");
    let lock = mcp_pin::lockfile::Lockfile::parse(text, std::path::Path::new("mcp.lock.example")).unwrap();
    assert!(lock.servers["everything"].launch.is_some());
    assert_eq!(lock.written_text(), text);
}
