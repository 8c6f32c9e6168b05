//! The docs cannot drift from the binary: every `console` block of README.md and docs/*.md is
//! run by `trycmd` in the project its page describes and its output compared; the other
//! examples that show what the binary prints are compared here (a JSON report) or snapshotted
//! (`lock --help`).

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every markdown page a new user reads.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// The fenced blocks of `md` whose info string starts with `lang`, each with the `##` heading
/// it is under.
fn blocks(md: &str, lang: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    let mut heading = String::new();
    let mut current: Option<String> = None;
    for line in md.lines() {
        match &mut current {
            Some(body) => {
                if line.starts_with("```") {
                    out.push((heading.clone(), std::mem::take(body)));
                    current = None;
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            None => {
                if let Some(h) = line.strip_prefix("## ") {
                    heading = h.trim().to_string();
                } else if let Some(info) = line.strip_prefix("```") {
                    if info.split([' ', ',']).next() == Some(lang) {
                        current = Some(String::new());
                    }
                }
            }
        }
    }
    out
}

/// The README demo after the demo server's patch release: pinned before, drifted now.
fn demo_drifted(dir: &Path) {
    let demo = root().join("examples/demo");
    std::fs::copy(demo.join("surface.json"), dir.join("surface.json")).unwrap();
    // The same config examples/demo/run.sh writes.
    std::fs::write(
        dir.join("mcp-pin.toml"),
        format!("[servers.demo]\ncommand = {:?}\nargs = [\"--surface\", \"surface.json\"]\n", fixture_bin()),
    )
    .unwrap();
    let out = std::process::Command::new(pin_bin())
        .arg("lock")
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    std::fs::copy(demo.join("surface-drifted.json"), dir.join("surface.json")).unwrap();
}

/// The project each console block runs in, by (page, heading). A block not listed fails the
/// test: a new example needs a project to run in.
fn scenario(page: &str, heading: &str) -> Option<fn(&Path)> {
    match (page, heading) {
        ("README.md", "What a failing check looks like") => Some(demo_drifted),
        _ => None,
    }
}

#[test]
fn every_console_example_in_the_docs_runs_as_written() {
    let work = tempfile::tempdir().unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("mcp-pin", PathBuf::from(pin_bin()))
        .env("NO_COLOR", "1")
        // Not under CI, and no step summary: what a user at a terminal gets (empty is unset).
        .env("CI", "")
        .env("GITHUB_ACTIONS", "")
        .timeout(std::time::Duration::from_secs(120));
    let mut n = 0;
    let mut unclaimed = vec![];
    for page in pages() {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        let md = std::fs::read_to_string(&page).unwrap();
        for lang in ["console", "trycmd"] {
            for (heading, body) in blocks(&md, lang) {
                let Some(setup) = scenario(&name, &heading) else {
                    unclaimed.push(format!("{name} / {heading}"));
                    continue;
                };
                n += 1;
                let case = work.path().join(format!("case{n}.trycmd"));
                let dir = work.path().join(format!("case{n}.in"));
                std::fs::create_dir(&dir).unwrap();
                setup(&dir);
                // A page's block ends its last line with a newline; trycmd reads a block's end as
                // "no newline" unless a blank line precedes the fence, which a page need not show.
                std::fs::write(&case, format!("```console\n{body}\n```\n")).unwrap();
                cases.case(&case);
            }
        }
    }
    assert!(unclaimed.is_empty(), "console blocks no scenario runs (add one to `scenario`): {unclaimed:?}");
    assert!(n >= 1, "the README's failing check is a console block");
    cases.run();
}

/// docs/report-json.md's example is exactly what the binary prints for the case it describes.
#[test]
fn the_json_report_example_is_what_check_prints() {
    let md = std::fs::read_to_string(root().join("docs/report-json.md")).unwrap();
    let example: Vec<String> =
        blocks(&md, "json").into_iter().filter(|(h, _)| h == "Example").map(|(_, b)| b).collect();
    assert_eq!(example.len(), 1, "one JSON block under ## Example");

    let p = Project::new();
    let surface = json!({
        "serverInfo": {"name": "docs", "version": "2.0.0"},
        "tools": [
            {"name": "fetch", "description": "Fetch a page.",
             "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}},
            {"name": "search", "description": "Search the docs.",
             "inputSchema": {"type": "object",
                             "properties": {"query": {"type": "string"}, "status": {"type": "string"}},
                             "required": ["query", "status"]}}
        ]
    });
    p.write_json("s.json", &surface);
    p.stdio_config(&[("docs", "s.json")]);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let mut drifted: Value = surface.clone();
    drifted["tools"][0]["inputSchema"]["properties"]["cursor"] = json!({"type": "string"});
    drifted["tools"][1]["inputSchema"]["required"] = json!(["query"]);
    p.write_json("s.json", &drifted);
    let out = p.run(&["check", "--no-probe", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(example[0], printed, "docs/report-json.md's example differs from what the binary prints");
}

/// `lock --help` says what docs/probes.md says about `--no-probe`, and the help is snapshotted.
#[test]
fn lock_help_agrees_with_the_probe_docs() {
    let out = std::process::Command::new(pin_bin())
        .args(["lock", "--help"])
        .env("COLUMNS", "100")
        .env_remove("MCP_PIN_ALLOW_ENV")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let probes = std::fs::read_to_string(root().join("docs/probes.md")).unwrap();
    assert!(probes.contains("`lock --no-probe` keeps the contracts pinned before"), "docs/probes.md changed");
    assert!(help.contains("the result shapes pinned before are kept"), "{help}");
    insta::assert_snapshot!("lock_help", help);
}
