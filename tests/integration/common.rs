//! Shared helpers for the integration tests: a temp project with a config and a fixture
//! surface, the real `mcp-pin` binary, and the real fixture MCP server (stdio or HTTP).
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

pub fn pin_bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-pin")
}

/// The fixture MCP server (`crates/mcp-pin-fixture`, its own workspace member). Cargo only tells
/// a test where the bins of its own package are, so this builds it once per test binary with the
/// cargo running the tests, into the same target directory and profile as this test binary
/// (`target/<profile>/deps/integration-…` → `target/<profile>/mcp-pin-fixture`); a no-op when it
/// is fresh (`cargo test --workspace` has built it). `MCP_PIN_FIXTURE=/path` skips the build.
pub fn fixture_bin() -> &'static str {
    static BIN: OnceLock<String> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("MCP_PIN_FIXTURE") {
            return p.to_string_lossy().into_owned();
        }
        let exe = std::env::current_exe().expect("test binary path");
        let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>/deps/<test>");
        let target_dir = profile_dir.parent().expect("target/<profile>");
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev",
            Some(other) => other,
            None => "dev",
        };
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "--quiet", "-p", "mcp-pin-fixture", "--bin", "mcp-pin-fixture", "--profile", profile])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("CARGO_TARGET_DIR", target_dir)
            .stdout(Stdio::null())
            .output()
            .expect("run cargo build -p mcp-pin-fixture");
        assert!(
            out.status.success(),
            "cargo build -p mcp-pin-fixture failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bin = profile_dir.join(format!("mcp-pin-fixture{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.is_file(), "no fixture at {}", bin.display());
        bin.display().to_string()
    })
}

/// A temp folder holding `mcp-pin.toml` and surface files.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        Project { dir: tempfile::tempdir().unwrap() }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write(&self, name: &str, text: &str) {
        std::fs::write(self.path(name), text).unwrap();
    }

    pub fn write_json(&self, name: &str, v: &Value) {
        self.write(name, &serde_json::to_string_pretty(v).unwrap());
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    /// A config with one stdio fixture server per (name, surface file).
    pub fn stdio_config(&self, servers: &[(&str, &str)]) {
        let mut toml = String::new();
        for (name, surface) in servers {
            toml.push_str(&format!(
                "[servers.{name}]\ncommand = {:?}\nargs = [\"--surface\", {:?}]\ntimeout = \"10s\"\n\n",
                fixture_bin(),
                self.path(surface).display().to_string()
            ));
        }
        self.write("mcp-pin.toml", &toml);
    }

    /// Run mcp-pin in the project folder.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_env(args, &[])
    }

    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(pin_bin());
        // CI (set when .ci/run runs the suite) changes what a config may read: a test that wants it says so.
        cmd.args(args).current_dir(self.dir.path()).env("NO_COLOR", "1").env_remove("GITHUB_ACTIONS").env_remove("CI");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// `check --format json`, parsed, with the exit code.
    pub fn check_json(&self, extra: &[&str]) -> (i32, Value) {
        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(extra);
        let out = self.run(&args);
        let code = out.status.code().unwrap_or(-1);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "check printed no JSON ({e}); exit {code}\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (code, v)
    }
}

/// A local port nothing listens on, for "the server is unreachable" tests. Below the ephemeral
/// range, so no other test of this binary (they bind port 0) can be handed it meanwhile, which a
/// freed ephemeral port can be.
pub fn dead_port() -> u16 {
    [9, 7, 1, 11, 13, 17, 19]
        .into_iter()
        .find(|&port| {
            let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
            matches!(std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(1)),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused)
        })
        .expect("one of the low ports 9, 7, 1, 11, 13, 17, 19 refuses connections")
}

pub fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The fixture server over Streamable HTTP on 127.0.0.1, killed on drop.
pub struct HttpFixture {
    pub child: Child,
    pub url: String,
}

impl HttpFixture {
    pub fn start(surface: &Path, extra: &[&str]) -> HttpFixture {
        let mut child = Command::new(fixture_bin())
            .args(["--surface", &surface.display().to_string(), "--http", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url =
            line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("fixture said {line:?}")).to_string();
        HttpFixture { child, url }
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `npx` is on PATH (real published servers are tested only then).
pub fn have_npx() -> bool {
    Command::new("npx")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// All changes in a check's JSON report, as (server, tool, rule, pointer).
pub fn changes(report: &Value) -> Vec<(String, String, String, String)> {
    let mut out = vec![];
    for s in report["servers"].as_array().unwrap() {
        for c in s["changes"].as_array().unwrap() {
            out.push((
                s["name"].as_str().unwrap().to_string(),
                c["tool"].as_str().unwrap_or("").to_string(),
                c["rule"].as_str().unwrap().to_string(),
                c["pointer"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

/// The SARIF schema's `language` pattern (in the OASIS 2.1.0 schema and rtm.5 alike) has a stray
/// `]` (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`) that fails the meta-schema's `regex` format, so
/// no validator compiles it as is. Drop that one keyword from the in-memory copy; the file stays
/// byte-identical to its source (tests/fixtures/README.md).
pub fn sarif_schema_value() -> serde_json::Value {
    const BROKEN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                if m.get("pattern").and_then(Value::as_str) == Some(BROKEN) {
                    m.remove("pattern");
                }
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sarif-2.1.0.json");
    let mut schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    strip(&mut schema);
    schema
}

pub fn sarif_schema() -> jsonschema::Validator {
    jsonschema::validator_for(&sarif_schema_value()).expect("the SARIF schema compiles")
}

/// Say, where a person running the tests reads it, that a test did not run what it is for.
/// libtest captures `eprintln!` of a passing test, so the line goes straight to the process's
/// stderr: `SKIP <test>: <why>` shows in the output of `cargo test` and of `.ci/run`.
pub fn skip(why: &str) {
    use std::io::Write;
    let name = std::thread::current().name().unwrap_or("a test").to_string();
    let _ = writeln!(std::io::stderr().lock(), "SKIP {name}: {why}");
}
