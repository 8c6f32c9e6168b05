//! The GitHub Action's shell logic (`action/run.sh`, `action/install.sh`) in a simulated Actions
//! environment: temp files for `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_ENV`, inputs as
//! `INPUT_*` variables, nothing inherited from the host's environment but `PATH` and `HOME`.
//!
//! `run.sh` is driven by a stand-in `mcp-pin` that writes reports rendered by the library from a
//! sample report (so the script's contract is tested on its own), and, end to end, by the real
//! binary against the fixture server.

use crate::common;

use common::sarif_schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcp_pin::change::Change;
use mcp_pin::probe::{Probe, ProbeKind, ProbeOutcome};
use mcp_pin::report::human::Style;
use mcp_pin::report::{self, FailOn, Format, LazyText, RenderContext, Report, ServerReport};
use mcp_pin::rules::Class;
use serde_json::{json, Value};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A simulated runner: a workspace, a temp folder and the files GitHub reads back.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new() -> Runner {
        let r = Runner { dir: tempfile::tempdir().unwrap() };
        for d in ["workspace", "temp"] {
            std::fs::create_dir_all(r.path(d)).unwrap();
        }
        for f in ["output", "summary", "env"] {
            std::fs::write(r.path(f), "").unwrap();
        }
        r
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn workspace(&self) -> PathBuf {
        self.path("workspace")
    }

    /// Run one of the action's scripts as a `run:` step would.
    fn run(&self, script: &str, env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new("bash");
        cmd.arg(repo().join("action").join(script))
            .current_dir(self.workspace())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_WORKSPACE", self.workspace())
            .env("GITHUB_ACTION_PATH", repo())
            .env("GITHUB_OUTPUT", self.path("output"))
            .env("GITHUB_STEP_SUMMARY", self.path("summary"))
            .env("GITHUB_ENV", self.path("env"))
            .env("GITHUB_SERVER_URL", "https://github.invalid")
            .env("RUNNER_TEMP", self.path("temp"))
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("NO_COLOR", "1");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// `GITHUB_OUTPUT` as a map (the scripts write single-line `name=value` entries).
    fn outputs(&self) -> BTreeMap<String, String> {
        std::fs::read_to_string(self.path("output"))
            .unwrap()
            .lines()
            .map(|l| {
                let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("bad output line {l:?}"));
                (k.to_string(), v.to_string())
            })
            .collect()
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn sample() -> Report {
    let mut s = ServerReport::ok("docs");
    s.changes = vec![
        Change {
            rule: mcp_pin::rules::RuleId::RequiredRemoved,
            class: Class::Silent,
            tool: Some("search".into()),
            pointer: "/inputSchema/required".into(),
            message: "`status` is no longer required".into(),
            before: Some(json!(["query", "status"])),
            after: Some(json!(["query"])),
            cues: None,
        },
        Change {
            rule: mcp_pin::rules::RuleId::PropertyAdded,
            class: Class::Loud,
            tool: Some("fetch".into()),
            pointer: "/inputSchema/properties/cursor".into(),
            message: "new optional property `cursor`".into(),
            before: None,
            after: Some(json!({"type": "string"})),
            cues: None,
        },
    ];
    s.probes = vec![Probe::new(
        "fetch",
        ProbeKind::Call,
        ProbeOutcome::Fail,
        Some(mcp_pin::rules::RuleId::CallFailed),
        "isError: true".into(),
    )];
    Report { fail_on: FailOn::Silent, servers: vec![s] }
}

const LOCK: &str = "{\n  \"lockfileVersion\": 1,\n  \"normalizerVersion\": 1,\n  \"servers\": {\n    \"docs\": {\n      \"capabilities\": {},\n      \"tools\": {\n        \"fetch\": {\n          \"name\": \"fetch\"\n        },\n        \"search\": {\n          \"name\": \"search\"\n        }\n      }\n    }\n  }\n}\n";

/// A stand-in `mcp-pin`: records its arguments and whether it saw GITHUB_STEP_SUMMARY, writes
/// each `--report FORMAT=PATH` from `canned/FORMAT`, prints a human report, exits with `code`.
fn stand_in(r: &Runner, report: Option<&Report>, code: i32) -> PathBuf {
    let canned = r.path("canned");
    std::fs::create_dir_all(&canned).unwrap();
    if let Some(report) = report {
        let ctx = RenderContext {
            style: Style::default(),
            lockfile_display: "mcp.lock".into(),
            lock_text: LazyText::text(LOCK),
            run_url: None,
        };
        for f in [Format::Json, Format::Markdown, Format::Github, Format::Sarif, Format::Human] {
            std::fs::write(canned.join(f.name()), report::render(report, f, &ctx)).unwrap();
        }
    }
    let script = r.path("mcp-pin");
    std::fs::write(
        &script,
        format!(
            r#"#!/usr/bin/env bash
printf '%s\n' "$@" > {args:?}
echo "${{GITHUB_STEP_SUMMARY-unset}}" > {seen:?}
while [[ $# -gt 0 ]]; do
  if [[ "$1" == --report ]]; then
    spec="$2"; fmt="${{spec%%=*}}"; path="${{spec#*=}}"
    [[ -f {canned:?}/"$fmt" ]] && cp {canned:?}/"$fmt" "$path"
    shift
  fi
  shift
done
[[ -f {canned:?}/human ]] && cat {canned:?}/human
exit {code}
"#,
            args = r.path("args").display().to_string(),
            seen = r.path("seen-summary").display().to_string(),
            canned = canned.display().to_string(),
        ),
    )
    .unwrap();
    let mut perm = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&script, perm).unwrap();
    script
}

fn assert_valid_sarif(v: &Value) {
    let errors: Vec<String> =
        sarif_schema().iter_errors(v).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "SARIF does not validate:\n{}", errors.join("\n"));
}

#[test]
fn run_sh_sets_outputs_summary_annotations_and_sarif_and_exits_with_checks_code() {
    for no_jq in ["0", "1"] {
        let r = Runner::new();
        std::fs::create_dir_all(r.workspace().join("sub")).unwrap();
        let bin = stand_in(&r, Some(&sample()), 1);
        let out = r.run(
            "run.sh",
            &[
                ("MCP_PIN", bin.to_str().unwrap()),
                ("MCP_PIN_NO_JQ", no_jq),
                ("INPUT_CONFIG", "ci/mcp-pin.toml"),
                ("INPUT_LOCKFILE", ""),
                ("INPUT_FAIL_ON", "loud"),
                ("INPUT_SERVERS", "docs\n  search-api "),
                ("INPUT_ARGS", "--jobs 2  --verbose"),
                ("INPUT_SARIF", "reports/mcp-pin.sarif"),
                ("INPUT_WORKING_DIRECTORY", "sub"),
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{}", show(&out));
        let args = r.read("args");
        let args: Vec<&str> = args.lines().collect();
        let temp = r.path("temp").join("mcp-pin-report");
        assert_eq!(
            args,
            [
                "check",
                "--config",
                "ci/mcp-pin.toml",
                "--fail-on",
                "loud",
                "--server",
                "docs",
                "--server",
                "search-api",
                "--jobs",
                "2",
                "--verbose",
                "--report",
                &format!("json={}", temp.join("report.json").display()),
                "--report",
                &format!("markdown={}", temp.join("report.md").display()),
                "--report",
                &format!("github={}", temp.join("annotations.txt").display()),
                "--report",
                "sarif=reports/mcp-pin.sarif",
            ]
        );
        assert_eq!(r.read("seen-summary").trim(), "unset", "the child does not append the summary itself");

        let outputs = r.outputs();
        assert_eq!(outputs["verdict"], "fail");
        assert_eq!(outputs["silent"], "1");
        assert_eq!(outputs["loud"], "1");
        assert_eq!(outputs["probe-failures"], "1");
        assert_eq!(outputs["report"], temp.join("report.md").display().to_string());
        assert_eq!(outputs["json"], temp.join("report.json").display().to_string());

        let summary = r.read("summary");
        assert!(summary.starts_with("## ❌ mcp-pin: FAIL"), "{summary}");
        assert_eq!(summary, std::fs::read_to_string(temp.join("report.md")).unwrap());

        let stdout = String::from_utf8_lossy(&out.stdout);
        // search is on line 11 of LOCK, fetch on line 8.
        assert!(
            stdout.contains("::error file=mcp.lock,line=11,title=mcp-pin%3A silent required-removed (search)::"),
            "{stdout}"
        );
        assert!(
            stdout.contains("::error file=mcp.lock,line=8,title=mcp-pin%3A silent call-failed (fetch)::"),
            "{stdout}"
        );
        assert!(
            stdout.contains("FAIL: 2 silent changes block the merge · 2 silent (1 from probes), 1 loud"),
            "the human report is in the log: {stdout}"
        );

        let sarif: Value =
            serde_json::from_str(&std::fs::read_to_string(r.workspace().join("sub/reports/mcp-pin.sarif")).unwrap())
                .unwrap();
        assert_valid_sarif(&sarif);
    }
}

#[test]
fn run_sh_passes_inputs_as_data_never_as_shell() {
    let r = Runner::new();
    let bin = stand_in(&r, Some(&Report { fail_on: FailOn::Silent, servers: vec![ServerReport::ok("a")] }), 0);
    let evil = "a;touch${IFS}pwned1 $(touch pwned2) `touch pwned3` *";
    let out = r.run(
        "run.sh",
        &[
            ("MCP_PIN", bin.to_str().unwrap()),
            ("INPUT_SERVERS", evil),
            ("INPUT_ARGS", "'--x' \"$(touch pwned4)\""),
            ("INPUT_CONFIG", "$(touch pwned5)"),
            ("INPUT_FAIL_ON", "silent"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for f in ["pwned1", "pwned2", "pwned3", "pwned4", "pwned5"] {
        assert!(!r.workspace().join(f).exists(), "{f} was created: an input ran as shell");
    }
    let args = r.read("args");
    assert!(args.contains("--server\na;touch${IFS}pwned1\n--server\n$(touch\n"), "{args}");
    assert!(args.contains("--server\n*\n"), "no globbing: {args}");
    assert!(args.contains("--config\n$(touch pwned5)\n"), "{args}");
    assert_eq!(r.outputs()["verdict"], "pass");
    assert_eq!(r.read("summary").lines().next().unwrap(), "## ✅ mcp-pin: PASS · no change");
}

#[test]
fn run_sh_without_a_report_is_an_error_with_outputs() {
    let r = Runner::new();
    let bin = stand_in(&r, None, 2);
    let out = r.run("run.sh", &[("MCP_PIN", bin.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("::error title=mcp-pin::mcp-pin check exited with code 2 and wrote no report"));
    assert_eq!(r.outputs()["verdict"], "error");
    let missing = r.run("run.sh", &[("MCP_PIN", bin.to_str().unwrap()), ("INPUT_WORKING_DIRECTORY", "nope")]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn run_sh_server_error_makes_the_verdict_error() {
    let r = Runner::new();
    let report = Report { fail_on: FailOn::Silent, servers: vec![ServerReport::error("docs", "cannot start".into())] };
    let bin = stand_in(&r, Some(&report), 2);
    let out = r.run("run.sh", &[("MCP_PIN", bin.to_str().unwrap())]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_eq!(r.outputs()["verdict"], "error");
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("::error file=mcp.lock,line=5,title=mcp-pin%3A server-error (server docs)::"));
}

fn have(cmd: &str) -> bool {
    Command::new(cmd).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

fn sha256(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split(' ').next().unwrap().to_string()
}

#[test]
fn install_sh_takes_a_checksummed_release_binary_or_falls_back_to_source() {
    if !have("curl") || !have("sha256sum") {
        eprintln!("curl or sha256sum missing: skipped");
        return;
    }
    // A preset binary is used as is.
    let r = Runner::new();
    let out = r.run("install.sh", &[("MCP_PIN", "/opt/mcp-pin")]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(r.outputs()["method"], "preset");
    assert_eq!(r.outputs()["lock-hash"].len(), 64);

    // A release: served from a local folder over file://.
    let releases = tempfile::tempdir().unwrap();
    let v = releases.path().join("v1.2.3");
    std::fs::create_dir_all(&v).unwrap();
    let asset = v.join("mcp-pin-x86_64-unknown-linux-gnu");
    std::fs::write(&asset, "#!/bin/sh\necho mcp-pin 1.2.3\n").unwrap();
    std::fs::write(
        v.join("mcp-pin-x86_64-unknown-linux-gnu.sha256"),
        format!("{}  mcp-pin-x86_64-unknown-linux-gnu\n", sha256(&asset)),
    )
    .unwrap();
    let base = format!("file://{}", releases.path().display());
    let r = Runner::new();
    let out = r.run("install.sh", &[("INPUT_VERSION", "1.2.3"), ("MCP_PIN_DOWNLOAD_BASE", &base)]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(r.outputs()["method"], "release", "{}", show(&out));
    let env = r.read("env");
    let bin = env.trim().strip_prefix("MCP_PIN=").unwrap_or_else(|| panic!("GITHUB_ENV: {env}"));
    let ran = Command::new(bin).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "mcp-pin 1.2.3\n");

    // The action's own tag is the default version; a tampered binary is refused.
    std::fs::write(&asset, "#!/bin/sh\necho evil\n").unwrap();
    let r = Runner::new();
    let out = r.run("install.sh", &[("ACTION_REF", "v1.2.3"), ("MCP_PIN_DOWNLOAD_BASE", &base)]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(r.outputs()["method"], "source");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("::warning title=mcp-pin::checksum mismatch"),
        "{}",
        show(&out)
    );
    assert_eq!(r.read("env"), "");

    // From a branch: build from source. An unknown platform: build from source.
    let r = Runner::new();
    let out = r.run("install.sh", &[("ACTION_REF", "main")]);
    assert_eq!(r.outputs()["method"], "source", "{}", show(&out));
    let r = Runner::new();
    let out =
        r.run("install.sh", &[("INPUT_VERSION", "1.2.3"), ("RUNNER_OS", "Plan9"), ("MCP_PIN_DOWNLOAD_BASE", &base)]);
    assert_eq!(r.outputs()["method"], "source", "{}", show(&out));
    // A missing release: build from source.
    let r = Runner::new();
    let out = r.run("install.sh", &[("INPUT_VERSION", "9.9.9"), ("MCP_PIN_DOWNLOAD_BASE", &base)]);
    assert_eq!(r.outputs()["method"], "source", "{}", show(&out));
    // A version that is not one is an error.
    let r = Runner::new();
    let out = r.run("install.sh", &[("INPUT_VERSION", "1.2.3; rm -rf /")]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

/// End to end with the real binary and the fixture server: lock, break the surface, run the
/// action's script.
#[test]

fn run_sh_end_to_end_with_the_fixture_server() {
    let r = Runner::new();
    let p = common::Project { dir: tempfile::tempdir_in(r.workspace()).unwrap() };
    let surface = |required: Value| {
        json!({
            "serverInfo": {"name": "fixture", "version": "1.0.0"},
            "tools": [
                {"name": "fetch", "description": "Fetch one record by id.",
                 "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
                {"name": "search", "description": "Search the catalogue.",
                 "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}, "status": {"type": "string"}}, "required": required}}
            ]
        })
    };
    p.write_json("surface.json", &surface(json!(["query", "status"])));
    p.stdio_config(&[("docs", "surface.json")]);
    let out = p.run(&["lock", "--no-probe"]);
    assert!(out.status.success(), "{}", common::text(&out));
    p.write_json("surface.json", &surface(json!(["query"])));
    let sub = p.dir.path().file_name().unwrap().to_str().unwrap().to_string();
    let out = r.run(
        "run.sh",
        &[
            ("MCP_PIN", common::pin_bin()),
            ("INPUT_WORKING_DIRECTORY", &sub),
            ("INPUT_ARGS", "--no-probe"),
            ("INPUT_SARIF", "mcp-pin.sarif"),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let outputs = r.outputs();
    assert_eq!(outputs["verdict"], "fail");
    assert_eq!(outputs["silent"], "1");
    assert_eq!(outputs["loud"], "0");
    assert_eq!(outputs["probe-failures"], "0");
    assert!(r.read("summary").contains("required-removed"));
    let lock = p.read("mcp.lock");
    let line = mcp_pin::lockfile::line_of(&lock, "docs", Some("search")).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "::error file={sub}/mcp.lock,line={line},title=mcp-pin%3A silent required-removed (search)::"
        )),
        "the lockfile is named from the workspace root: {stdout}"
    );
    let sarif: Value = serde_json::from_str(&p.read("mcp-pin.sarif")).unwrap();
    assert_valid_sarif(&sarif);
    assert_eq!(sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], line as u64);
}
