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

/// `examples/quiet-injection`: the billing server pinned at 2.0.0, serving its 2.1.0 release
/// (thirteen rewordings, four structural changes, one quiet injection).
fn quiet_injection(dir: &Path) {
    let ex = root().join("examples/quiet-injection");
    std::fs::copy(ex.join("surface.json"), dir.join("surface.json")).unwrap();
    std::fs::write(
        dir.join("mcp-pin.toml"),
        format!("[servers.billing]\ncommand = {:?}\nargs = [\"--surface\", \"surface.json\"]\n", fixture_bin()),
    )
    .unwrap();
    let out = std::process::Command::new(pin_bin())
        .args(["lock", "--no-probe"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    std::fs::copy(ex.join("surface-released.json"), dir.join("surface.json")).unwrap();
}

/// The project each console block runs in, by (page, heading). A block not listed fails the
/// test: a new example needs a project to run in.
fn scenario(page: &str, heading: &str) -> Option<fn(&Path)> {
    match (page, heading) {
        ("README.md", "What a failing check looks like") => Some(demo_drifted),
        ("github-action.md", "A quiet injection") => Some(quiet_injection),
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

/// The `run:` script of the step named `step` in a workflow file: the lines of its `run: |`
/// block, de-indented.
fn step_script(yaml: &str, step: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let start = lines.iter().position(|l| l.trim() == format!("- name: {step}")).expect("the step");
    let run = start + lines[start..].iter().position(|l| l.trim() == "run: |").expect("its run block");
    let indent = lines[run + 1].len() - lines[run + 1].trim_start().len();
    let mut out = String::new();
    for l in &lines[run + 1..] {
        if !l.trim().is_empty() && l.len() - l.trim_start().len() < indent {
            break;
        }
        out.push_str(l.get(indent..).unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The drift cron's recipe (docs/drift-cron.md, the same as docs/examples/mcp-pin-drift.yml)
/// builds its issue from mcp-pin's own escaped markdown: run as written, with the real binary
/// and a stand-in `gh`, a server's `<img src=x>` and pipes stay text in the issue's body, the
/// body is the markdown report, and a drift-free report closes the issue.
#[cfg(unix)]
#[test]
fn the_drift_cron_issue_is_mcp_pins_escaped_markdown() {
    use mcp_pin::change::Change;
    use mcp_pin::report::{self, FailOn, Format, RenderContext, Report, ServerReport};
    use mcp_pin::rules::Class;
    use std::os::unix::fs::PermissionsExt;

    let doc = std::fs::read_to_string(root().join("docs/drift-cron.md")).unwrap();
    let example = std::fs::read_to_string(root().join("docs/examples/mcp-pin-drift.yml")).unwrap();
    let step = "Open, update or close the drift issue";
    let script = step_script(&example, step);
    assert_eq!(step_script(&doc, step), script, "docs/drift-cron.md and the example file differ");
    assert!(!script.contains("jq -r") && script.contains("--format markdown"), "{script}");

    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(pin_bin(), bin.join("mcp-pin")).unwrap();
    // `gh`: `issue list` answers $EXISTING; create/edit/close record their arguments and body.
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        "#!/usr/bin/env bash\nset -e\ncase \"$1 $2\" in\n  'issue list') echo \"${EXISTING:-}\" ;;\n  *) printf '%s\\n' \"$*\" >> calls.txt\n     while [ $# -gt 0 ]; do if [ \"$1\" = --body-file ]; then cp \"$2\" issue.md; fi; shift; done ;;\nesac\n",
    )
    .unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |report: &Report, existing: &str| {
        let work = tempfile::tempdir().unwrap();
        std::fs::write(
            work.path().join("report.json"),
            report::render(report, Format::Json, &RenderContext::default()),
        )
        .unwrap();
        let out = std::process::Command::new("bash")
            .args(["-eo", "pipefail", "-c", &script])
            .current_dir(work.path())
            .env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()))
            .env("SERVER", "search")
            .env("RUN_URL", "https://github.com/o/r/actions/runs/7")
            .env("EXISTING", existing)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("CI")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let read = |f: &str| std::fs::read_to_string(work.path().join(f)).unwrap_or_default();
        (read("calls.txt"), read("issue.md"))
    };
    let mut s = ServerReport::ok("search");
    s.changes.push(Change {
        rule: "enum-value-added".parse().unwrap(),
        class: Class::Loud,
        tool: Some("find".into()),
        pointer: "/inputSchema/properties/mode/enum".into(),
        message: "argument \"mode\" of tool find now accepts \"<img src=x> | @team\"".into(),
        before: None,
        after: Some(serde_json::json!("<img src=x> | @team")),
        cues: None,
    });
    let drifted = Report { fail_on: FailOn::Never, servers: vec![s] };
    let (calls, body) = run(&drifted, "");
    assert!(calls.starts_with("issue create --title MCP drift: search --body-file body.md"), "{calls}");
    assert!(body.starts_with("## ❌ mcp-pin: FAIL"), "{body}");
    // `@team` is defanged: a zero-width space after `@`, so GitHub pings nobody.
    assert!(
        body.contains("\\<img src=x\\> \\| \\@\u{200B}team") && !body.replace("\\<", "").contains("<img"),
        "{body}"
    );
    assert!(body.trim_end().ends_with("Found by [this run](https://github.com/o/r/actions/runs/7)."), "{body}");
    let quiet = Report { fail_on: FailOn::Never, servers: vec![ServerReport::ok("search")] };
    let (calls, _) = run(&quiet, "12");
    assert!(calls.starts_with("issue close 12 --comment"), "{calls}");
}
