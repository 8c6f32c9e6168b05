//! The process boundary between mcp-pin and the stdio servers it starts (docs/security.md),
//! against hostile servers (the fixture's `hostile` mode): a server cannot read mcp-pin's
//! environment or memory, nor signal it; no process it starts outlives mcp-pin however mcp-pin
//! ends; a signal never leaves a lock (or a report) written.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{fixture_bin, pin_bin, skip, text, Project};
use crate::sandbox::{nonce, processes_with};

const SECRET: &str = "sk-mcp-pin-own-environment-9f3c2a7d51";

fn config(p: &Project, extra_args: &[&str]) {
    let mut args = vec!["--surface".to_string(), "s.json".to_string()];
    args.extend(extra_args.iter().map(|s| s.to_string()));
    p.write(
        "mcp-pin.toml",
        &format!("[servers.s]\ncommand = {:?}\nargs = {:?}\ntimeout = \"60s\"\n", fixture_bin(), args),
    );
}

fn spawn_pin(p: &Project, args: &[&str]) -> Child {
    Command::new(pin_bin())
        .args(args)
        .current_dir(p.dir.path())
        .env_remove("CI")
        .env("MCP_PIN_TEST_SECRET", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_for(what: &str, secs: u64, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(30));
    }
}

fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
}

fn landlock_abi() -> i32 {
    mcp_pin::sandbox::linux::landlock_abi()
}

#[test]
fn a_server_cannot_read_mcp_pins_environment_or_memory() {
    if landlock_abi() < 2 {
        skip("no Landlock domain on this kernel: only PR_SET_DUMPABLE protects mcp-pin, which root ignores");
        return;
    }
    let p = Project::new();
    let report = p.path("stolen.txt");
    p.write_json("s.json", &json!({"tools": [], "hostile": {"escape": {"readAncestors": true, "report": report}}}));
    config(&p, &[]);
    let child = spawn_pin(&p, &["lock"]);
    let pin = child.id() as i32;
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stolen = std::fs::read_to_string(&report).expect("the hostile server wrote what it got");
    // The server did aim at mcp-pin itself (else this test could not fail)...
    assert!(stolen.contains(&format!("environ {pin} mcp-pin: ")), "{stolen}");
    // ... and got nothing of it, nor of the helper between them.
    assert!(!stolen.contains(SECRET), "mcp-pin's environment leaked to a server:\n{stolen}");
    for line in stolen.lines().filter(|l| l.starts_with("environ") || l.starts_with("mem") || l.starts_with("ptrace")) {
        assert!(line.contains(": refused ("), "{line}");
    }
}

#[test]
fn a_servers_signal_to_its_parent_or_to_mcp_pin_does_nothing() {
    if landlock_abi() < 6 {
        skip("signal scoping needs Landlock ABI 6 (Linux 6.12)");
        return;
    }
    let p = Project::new();
    let report = p.path("signals.txt");
    p.write_json(
        "s.json",
        &json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}],
                "hostile": {"escape": {"signalAncestors": true, "report": report}},
                "calls": {"t": {"escape": {"signalAncestors": true}}}}),
    );
    config(&p, &[]);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(p.path("mcp.lock").exists(), "{}", text(&out));
    let said = std::fs::read_to_string(&report).unwrap();
    assert!(said.lines().filter(|l| l.starts_with("signal")).count() >= 2, "helper and mcp-pin: {said}");
    for line in said.lines().filter(|l| l.starts_with("signal")) {
        assert!(line.contains(": refused ("), "{line}");
    }
}

/// A server that ignores EOF and SIGTERM/SIGINT/SIGHUP, and left a `setsid` daemon behind:
/// after mcp-pin ends by `signal`, neither is running.
fn nothing_outlives_mcp_pin(signal: libc::c_int) {
    let p = Project::new();
    let marker = format!("mcp-pin-boundary-daemon-{}", nonce());
    p.write_json(
        "s.json",
        &json!({"tools": [], "fault": "neverAnswer",
                "hostile": {"ignoreEof": true, "ignoreSignals": true, "escape": {"daemon": marker}}}),
    );
    config(&p, &["--dump-env", "s.env"]);
    let mut child = spawn_pin(&p, &["lock"]);
    let server = {
        let mut pid = None;
        wait_for("the server to start", 30, || {
            pid = std::fs::read_to_string(p.path("s.env")).ok().and_then(|t| {
                t.lines().find_map(|l| l.strip_prefix("MCP_PIN_FIXTURE_PID=").and_then(|v| v.parse().ok()))
            });
            pid.is_some()
        });
        pid.unwrap()
    };
    wait_for("the daemon to start", 10, || !processes_with(&marker).is_empty());
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: kill with integer arguments.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let status = child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    let gone = Instant::now() + Duration::from_secs(5);
    while (alive(server) || !processes_with(&marker).is_empty()) && Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = processes_with(&marker);
    for pid in left.iter().chain([&server]) {
        // SAFETY: cleanup of a failed test.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
    assert!(!alive(server), "the server {server} outlived mcp-pin after signal {signal}");
    assert!(left.is_empty(), "the setsid daemon outlived mcp-pin after signal {signal}: {left:?}");
}

#[test]
fn nothing_a_server_started_outlives_mcp_pin_after_sigkill() {
    nothing_outlives_mcp_pin(libc::SIGKILL);
}

#[test]
fn nothing_a_server_started_outlives_mcp_pin_after_sighup() {
    nothing_outlives_mcp_pin(libc::SIGHUP);
}

#[test]
fn nothing_a_server_started_outlives_mcp_pin_after_sigint() {
    nothing_outlives_mcp_pin(libc::SIGINT);
}

#[test]
fn nothing_a_server_started_outlives_mcp_pin_after_sigterm() {
    nothing_outlives_mcp_pin(libc::SIGTERM);
}

/// Probes in flight when SIGTERM (or SIGINT, SIGHUP) arrives: the run stops, exits 128 + the
/// signal, and writes nothing: no new lock, an existing lock untouched, no report file.
#[test]
fn a_signal_during_probes_never_leaves_a_lock_or_report_written() {
    for (signal, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130), (libc::SIGHUP, 129)] {
        let p = Project::new();
        let calling = p.path("calling");
        let tools: Vec<Value> = (0..3)
            .map(|i| json!({"name": format!("slow{i}"), "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}))
            .collect();
        let slow = json!({"delayMs": 4000, "escape": {"write": [calling]}});
        // Told to end, the server stops answering at once and lingers: the calls in flight fail
        // while mcp-pin is still ending its servers, long before it exits. Whatever the run
        // makes of those failures must not be written.
        let hostile = json!({"closeStdoutOnTerm": true});
        p.write_json(
            "s.json",
            &json!({"tools": tools, "calls": {"slow0": slow, "slow1": slow, "slow2": slow}, "hostile": hostile}),
        );
        config(&p, &[]);
        for (what, args) in [("lock", vec!["lock"]), ("check", vec!["check", "--output", "report.json"])] {
            if what == "check" {
                // A lock to check against, its probes pinned (a tool the lock holds no probe for
                // is not called at `check`): the slow calls are made again by the check.
                let out = p.run(&["lock"]);
                assert_eq!(out.status.code(), Some(0), "{}", text(&out));
            }
            let before = std::fs::read(p.path("mcp.lock")).ok();
            let _ = std::fs::remove_file(&calling);
            let child = spawn_pin(&p, &args);
            wait_for("the calls to be in flight", 30, || calling.exists());
            std::thread::sleep(Duration::from_millis(100));
            // SAFETY: kill with integer arguments.
            unsafe {
                libc::kill(child.id() as i32, signal);
            }
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(code), "{what} after signal {signal}: {}", text(&out));
            assert_eq!(
                std::fs::read(p.path("mcp.lock")).ok(),
                before,
                "{what}: the lock changed after signal {signal}"
            );
            assert!(!p.path("report.json").exists(), "{what}: a report was written after signal {signal}");
            assert!(out.stdout.is_empty(), "{what}: a report was printed: {}", text(&out));
            assert!(String::from_utf8_lossy(&out.stderr).contains("nothing was written"), "{}", text(&out));
        }
    }
}

#[test]
fn the_helper_line_is_not_a_command_a_person_types() {
    // `mcp-pin __mcp-pin-helper` is hidden: neither the help nor the completions list it.
    let out = Command::new(pin_bin()).arg("--help").output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains(mcp_pin::sandbox::HELPER_ARG));
    let bad = Command::new(pin_bin()).args([mcp_pin::sandbox::HELPER_ARG, "bogus"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(Path::new(pin_bin()).is_file());
}

/// A secret expanded into a server's `args` is in the server's own command line (a program's
/// arguments are its own), and in no other: the helper it runs under reads them from a pipe
/// (src/sandbox/helper.rs, `--argv-fd`). `lock` warns once for the server, naming the variable,
/// never its value. Checked from outside while the server runs: every process whose
/// `/proc/PID/cmdline` holds the secret is the fixture itself. With the arguments put back on
/// the helper's command line (`launch_with` writing them after `--`), this fails (tried by hand).
#[test]
fn a_secret_in_args_is_on_the_servers_command_line_only_and_lock_warns_once() {
    let p = Project::new();
    let secret = format!("argsecret-{}", nonce().replace('-', ""));
    p.write_json(
        "s.json",
        &json!({"tools": [{"name": "look", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}],
                "calls": {"look": {"delayMs": 1500}}}),
    );
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.s]\ncommand = {:?}\nargs = [\"--surface\", \"s.json\", \"--note\", \"${{PIN_ARGS_SECRET}}\"]\ntimeout = \"60s\"\n",
            fixture_bin()
        ),
    );
    let mut child = Command::new(pin_bin())
        .args(["lock"])
        .current_dir(p.dir.path())
        .env_remove("CI")
        .env("PIN_ARGS_SECRET", &secret)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let cmdline = |pid: i32| {
        String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default()).replace('\0', " ")
    };
    let parent = |pid: i32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let after = stat.rfind(')').map(|i| &stat[i + 1..]).unwrap_or("");
        after.split_whitespace().nth(1).and_then(|p| p.parse::<i32>().ok()).unwrap_or(0)
    };
    let mut holders: std::collections::BTreeMap<i32, String> = Default::default();
    let mut helpers_seen = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        for pid in processes_with(&secret) {
            holders.insert(pid, cmdline(pid));
            // The server's parent is its helper, seen while the server runs.
            if cmdline(parent(pid)).contains(mcp_pin::sandbox::HELPER_ARG) {
                helpers_seen += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert!(helpers_seen > 0, "the server ran under no helper");
    assert!(!holders.is_empty(), "the server was never seen with its argument");
    let fixture = fixture_bin().to_string();
    for (pid, line) in &holders {
        assert!(line.starts_with(&format!("{fixture} ")), "process {pid} holds the secret in its command line: {line}");
        assert!(!line.contains(mcp_pin::sandbox::HELPER_ARG), "the helper holds the secret: {line}");
    }
    let warning =
        "warning: server `s`: `args` holds the secret `${PIN_ARGS_SECRET}`: any process on this machine can read";
    assert_eq!(err.matches(warning).count(), 1, "{err}");
    assert!(!err.contains(&secret), "{err}");
    assert!(!p.read("mcp.lock").contains(&secret));
}
