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

/// Start an HTTP server that prints `listening on URL` as its first line of output (the
/// fixture's `--http`, the hostile server's), and return it with that URL.
pub fn spawn_listening(command: &mut Command) -> (Child, String) {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url =
        line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("the server said {line:?}")).to_string();
    (child, url)
}

impl HttpFixture {
    pub fn start(surface: &Path, extra: &[&str]) -> HttpFixture {
        let mut command = Command::new(fixture_bin());
        command.args(["--surface", &surface.display().to_string(), "--http", "127.0.0.1:0"]).args(extra);
        let (child, url) = spawn_listening(&mut command);
        HttpFixture { child, url }
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server that binds a port of its own choosing (it is told port 0) and is found by asking
/// the kernel which port its process group listens on: the test never picks a port and hands it
/// over, which another test of this binary could be given meanwhile. Started in its own process
/// group; the whole group is killed on drop (a package runner's child included).
pub struct ListeningServer {
    child: Child,
    pub port: u16,
}

impl ListeningServer {
    /// Start `cmd` (already told to listen on port 0) and wait up to `wait` for its port.
    pub fn start(mut cmd: Command, wait: std::time::Duration) -> ListeningServer {
        use std::os::unix::process::CommandExt;
        let child = cmd.process_group(0).spawn().unwrap();
        let mut server = ListeningServer { child, port: 0 };
        let deadline = std::time::Instant::now() + wait;
        loop {
            if let Some(port) = listening_port(server.child.id() as i32) {
                server.port = port;
                return server;
            }
            if let Ok(Some(st)) = server.child.try_wait() {
                panic!("the server exited before it listened: {st}");
            }
            assert!(std::time::Instant::now() < deadline, "the server did not listen within {wait:?}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

impl Drop for ListeningServer {
    fn drop(&mut self) {
        let pgid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// The TCP port some process of group `pgid` listens on: its sockets' inodes (`/proc/PID/fd`)
/// looked up among the listening sockets of `/proc/net/tcp` and `tcp6`.
fn listening_port(pgid: i32) -> Option<u16> {
    let mut inodes = std::collections::BTreeSet::new();
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // pid (comm) state ppid pgrp ...: the comm may hold spaces and parentheses
        let group = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(2)?.parse::<i32>().ok());
        if group != Some(pgid) {
            continue;
        }
        for fd in std::fs::read_dir(format!("/proc/{pid}/fd")).into_iter().flatten().flatten() {
            let link = std::fs::read_link(fd.path()).unwrap_or_default();
            if let Some(inode) = link.to_str().and_then(|l| l.strip_prefix("socket:[")?.strip_suffix(']')) {
                inodes.insert(inode.to_string());
            }
        }
    }
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().find_map(|table| {
        std::fs::read_to_string(table).ok()?.lines().skip(1).find_map(|row| {
            let f: Vec<&str> = row.split_whitespace().collect();
            let listening = f.get(3) == Some(&"0A") && f.get(9).is_some_and(|i| inodes.contains(*i));
            let port = f.get(1)?.rsplit_once(':')?.1;
            listening.then(|| u16::from_str_radix(port, 16).ok()).flatten()
        })
    })
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

/// Set (any value but empty or `0`) by `.ci/run`, where every dependency of every test is
/// installed: a test that would [`skip`] fails instead, naming itself and why (a skip there means
/// a broken install, not a test that passed). A test-only variable: mcp-pin itself never reads
/// it, so it is not in `src/env_vars.rs`. `scripts/probe-bench.sh` and
/// `scripts/sandbox-smoke.sh` read it too.
pub const MCP_PIN_NO_SKIP: &str = "MCP_PIN_NO_SKIP";

/// Whether [`MCP_PIN_NO_SKIP`] is set.
pub fn no_skip() -> bool {
    std::env::var(MCP_PIN_NO_SKIP).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Say, where a person running the tests reads it, that a test did not run what it is for
/// because something it needs is missing here (a program, a server, a kernel feature). libtest
/// captures `eprintln!` of a passing test, so the line goes straight to the process's stderr:
/// `SKIP <test>: <why>` shows in the output of `cargo test`. Under [`MCP_PIN_NO_SKIP`]
/// (`.ci/run`) it panics instead, naming the test and why: the caller's test fails.
pub fn skip(why: &str) {
    let name = std::thread::current().name().unwrap_or("a test").to_string();
    if no_skip() {
        panic!("SKIP {name}: {why}; {MCP_PIN_NO_SKIP} is set (.ci/run installs every dependency), so a test that cannot run fails");
    }
    skip_line(&name, why);
}

/// A skip no install can prevent, where it is (a chance the test waits for did not come):
/// `SKIP <test>: <why>` is printed, even under [`MCP_PIN_NO_SKIP`], and the test passes. Say in
/// `why` why no install helps.
pub fn skip_inherent(why: &str) {
    let name = std::thread::current().name().unwrap_or("a test").to_string();
    skip_line(&name, why);
}

fn skip_line(name: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "SKIP {name}: {why}");
}

/// The `kind` probe (`call` or `incomplete`) of `tool` in a JSON report's first server.
pub fn probe<'a>(report: &'a serde_json::Value, tool: &str, kind: &str) -> &'a serde_json::Value {
    report["servers"][0]["probes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["tool"] == tool && p["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} probe of {tool}: {report:#}"))
}

/// What the lock pins of `server`'s probes (its `probes` object).
pub fn pins(p: &Project, server: &str) -> serde_json::Value {
    let lock: serde_json::Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    lock["servers"][server]["probes"].clone()
}
