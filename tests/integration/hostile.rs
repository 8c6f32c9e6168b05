//! Hostile servers, lockfiles and environments (docs/security.md), over real transports:
//! - a parser of the GitHub runner's command rules, run over every output of a run against
//!   servers that put workflow commands in every string they send, finds no command but
//!   mcp-pin's own annotations;
//! - a canary secret configured for one server reaches nothing else: not another server's
//!   process, not any output, not the lockfile; under CI a config reads only allowed variables;
//! - a redirect to another origin is refused (or, allowed, followed without the configured
//!   headers); a FIFO lockfile is refused; a signal ends every server; concurrent `lock` runs
//!   lose nothing.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

/// Text that starts workflow commands in every way the runner reads them.
pub(crate) const PAYLOAD: &str = "x\n::add-mask::FAIL\n  ::stop-commands::T0K\r::error::forged ##[add-mask]FAIL ##[set-env name=EVIL]1\u{2028}::warning::y";

/// Every workflow command the runner would read in `text`: `(line, command)`. Lines end at
/// `\n` or `\r`; a line whose text after leading (Unicode) whitespace starts with `::` and has a
/// second `::` is a command; `##[name...]` anywhere in a line is the legacy form.
pub(crate) fn workflow_commands(text: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    for line in text.split(['\n', '\r']) {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("::") {
            if let Some(end) = rest.find("::") {
                let name = rest[..end].split(' ').next().unwrap_or("").to_string();
                out.push((line.to_string(), name));
            }
        }
        let mut from = 0;
        while let Some(i) = line[from..].find("##[") {
            let start = from + i + 3;
            if let Some(j) = line[start..].find(']') {
                let name = line[start..start + j].split(' ').next().unwrap_or("").to_string();
                out.push((line.to_string(), format!("##[{name}")));
            }
            from = start;
        }
    }
    out
}

/// Assert that `text` carries no workflow command but, when `annotations`, mcp-pin's own.
pub(crate) fn assert_no_command(what: &str, text: &str, annotations: bool) {
    for (line, name) in workflow_commands(text) {
        let own = annotations
            && ["error", "warning", "notice"].contains(&name.as_str())
            && ["::error ", "::warning ", "::notice "].iter().any(|p| line.starts_with(p));
        assert!(own, "{what}: the runner would read command `{name}` in line {line:?}\n--- whole output:\n{text}");
    }
}

#[test]
fn the_runner_rules_parser_finds_what_the_runner_reads() {
    let found: Vec<String> = workflow_commands(PAYLOAD).into_iter().map(|c| c.1).collect();
    assert_eq!(found, ["add-mask", "stop-commands", "error", "##[add-mask", "##[set-env"]);
    assert!(workflow_commands("a :: b\n\\u{003A}:add-mask::x\n#\\u{0023}[add-mask]").is_empty());
}

pub(crate) fn hostile_tool(name: &str, p: &str) -> Value {
    json!({
        "name": name,
        "title": format!("title {p}"),
        "description": format!("Reads things. {p}"),
        "annotations": {"readOnlyHint": true, "title": p},
        "inputSchema": {
            "type": "object",
            "properties": {
                "q": {"type": "string", "description": format!("query {p}"), "enum": ["a", p], "default": p},
                p: {"type": "string", "title": p}
            },
            "required": ["q"]
        },
        "_meta": {"k": p}
    })
}

pub(crate) fn hostile_surface(p: &str, version: &str) -> Value {
    json!({
        "serverInfo": {"name": format!("evil {p}"), "version": version},
        "instructions": format!("Use me. {p}"),
        "tools": [
            hostile_tool("read", p),
            hostile_tool(&format!("t##[add-mask]FAIL{}", if p.is_empty() { "" } else { "\n::add-mask::N" }), p),
        ],
        "calls": {"read": {"result": {"content": [{"type": "text", "text": p}], "isError": true}}},
        "fault": {"junkStdout": format!("junk {p}"), "stderr": format!("stderr {p}")}
    })
}

/// A bare HTTP server on 127.0.0.1 that answers every JSON-RPC request with an error whose
/// message is `message` (a remote server hostile in its errors).
fn error_server(message: &'static str) -> (String, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        listener.set_nonblocking(false).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        for stream in listener.incoming() {
            if Instant::now() > deadline {
                break;
            }
            let Ok(mut s) = stream else { continue };
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let Some(body) = read_request(&mut s).map(|r| r.1) else {
                continue;
            };
            let id = serde_json::from_slice::<Value>(&body).ok().and_then(|v| v.get("id").cloned());
            let reply = match id {
                Some(id) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": message}}).to_string()
                }
                None => String::new(),
            };
            let status = if reply.is_empty() { "202 Accepted" } else { "500 Internal Server Error" };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (url, handle)
}

/// One HTTP request: (head, body).
fn read_request(s: &mut std::net::TcpStream) -> Option<(String, Vec<u8>)> {
    let mut reader = BufReader::new(s.try_clone().ok()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let len = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0))
        })
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some((head, body))
}

#[test]
fn no_output_of_a_hostile_run_carries_a_workflow_command() {
    let p = Project::new();
    // Pinned while benign, then the server turns hostile: every diff quotes hostile text.
    p.write_json("s.json", &hostile_surface("", "1.0.0"));
    let (bad_http, _h) = error_server("denied\n::add-mask::FAIL\n##[add-mask]FAIL");
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.evil]\ncommand = {:?}\nargs = [\"--surface\", \"s.json\"]\ntimeout = \"10s\"\nprobe = \"all\"\n\n[servers.remote]\nurl = {:?}\ntimeout = \"5s\"\n",
            fixture_bin(),
            bad_http
        ),
    );
    let mut outputs: Vec<(String, String, bool)> = vec![];
    fn record(outputs: &mut Vec<(String, String, bool)>, what: &str, out: &std::process::Output, annotations: bool) {
        outputs.push((format!("{what} stdout"), String::from_utf8_lossy(&out.stdout).into_owned(), annotations));
        outputs.push((format!("{what} stderr"), String::from_utf8_lossy(&out.stderr).into_owned(), false));
    }
    let out = p.run(&["lock", "-v"]);
    record(&mut outputs, "first lock", &out, false);
    std::fs::copy(p.path("mcp.lock"), p.path("old.lock")).unwrap();
    // A pull request edits the lockfile: its "before" text is hostile too.
    let edited = p.read("mcp.lock").replace(
        "Reads things. ",
        &format!("Reads things. {}", PAYLOAD.replace('\n', "\\n").replace('\r', "\\r").replace('\u{2028}', "\\u2028")),
    );
    p.write("mcp.lock", &edited);
    p.write_json("s.json", &hostile_surface(PAYLOAD, PAYLOAD));
    let summary = p.path("summary.md");
    let gha = [("GITHUB_ACTIONS", "true"), ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())];
    for format in ["human", "json", "markdown", "github", "sarif", "junit"] {
        let report = format!("r.{format}");
        let out = p.run_env(&["check", "-v", "--format", format, "--report", &format!("{format}={report}")], &gha);
        assert_ne!(out.status.code(), Some(0), "{}", text(&out));
        record(&mut outputs, &format!("check --format {format}"), &out, format == "github");
        outputs.push((format!("report file {format}"), p.read(&report), format == "github"));
        let out = p.run(&["diff", "old.lock", "mcp.lock", "--format", format]);
        record(&mut outputs, &format!("diff --format {format}"), &out, format == "github");
    }
    outputs.push(("step summary".into(), p.read("summary.md"), false));
    let mut review = Command::new(pin_bin())
        .args(["review", "--server", "evil"])
        .current_dir(p.dir.path())
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    review.stdin.take().unwrap().write_all(b"n\nn\nn\nn\nq\n").unwrap();
    let out = review.wait_with_output().unwrap();
    record(&mut outputs, "review", &out, false);
    let out = p.run(&["lock", "-v"]);
    record(&mut outputs, "second lock (accepting hostile changes)", &out, false);
    outputs.push(("lockfile".into(), p.read("mcp.lock"), false));

    let mut saw_payload = false;
    for (what, text, annotations) in &outputs {
        if what != "lockfile" {
            assert_no_command(what, text, *annotations);
        }
        saw_payload |= text.contains("add-mask");
    }
    // The lockfile is JSON: no raw line break of a server's text survives in it.
    assert!(!p.read("mcp.lock").contains("\n::"), "lockfile");
    assert!(saw_payload, "the hostile text was never shown at all: the test would prove nothing");
    // The remote server's hostile error is reported, escaped.
    let lock_err = &outputs.iter().find(|o| o.0 == "first lock stderr").unwrap().1;
    assert!(lock_err.contains("remote") && lock_err.contains("denied"), "{lock_err}");
}

const CANARY_A: &str = "canaryAAAA7f3e";
const CANARY_B: &str = "canaryBBBB9c1d";
const CANARY_JOB: &str = "canaryJOBB4e2a";

fn two_servers(p: &Project) {
    p.write_json(
        "a.json",
        &json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}],
                "fault": {"junkStdout": "my key is $ENV{A_KEY}", "stderr": "stderr says $ENV{A_KEY}"}}),
    );
    p.write_json("b.json", &json!({"tools": [{"name": "other", "inputSchema": {"type": "object"}}]}));
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.a]\ncommand = {f:?}\nargs = [\"--surface\", \"a.json\", \"--dump-env\", \"a.env\"]\nenv = {{ A_KEY = \"${{A_SECRET}}\" }}\n\n\
             [servers.b]\ncommand = {f:?}\nargs = [\"--surface\", \"b.json\", \"--dump-env\", \"b.env\", \"--note=${{B_SECRET}}\"]\nenv = {{ B_KEY = \"${{B_SECRET}}\" }}\n",
            f = fixture_bin()
        ),
    );
}

#[test]
fn a_secret_reaches_its_own_server_only() {
    let p = Project::new();
    two_servers(&p);
    let env = [("A_SECRET", CANARY_A), ("B_SECRET", CANARY_B), ("JOB_TOKEN", CANARY_JOB)];
    let mut blobs = vec![];
    let out = p.run_env(&["lock", "-v"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    blobs.push(text(&out));
    for format in ["human", "json", "markdown", "github", "sarif", "junit"] {
        let out = p.run_env(&["check", "-v", "--format", format], &env);
        blobs.push(text(&out));
    }
    blobs.push(p.read("mcp.lock"));
    for (i, b) in blobs.iter().enumerate() {
        for c in [CANARY_A, CANARY_B, CANARY_JOB] {
            assert!(!b.contains(c), "output #{i} shows a secret:\n{b}");
        }
    }
    // Server a printed its own key on stdout: the warning is there, masked.
    assert!(blobs[0].contains("my key is ***"), "{}", blobs[0]);
    // Each process has its own secret, and neither the other's nor the job's.
    let (a, b) = (p.read("a.env"), p.read("b.env"));
    assert!(a.contains(CANARY_A) && !a.contains(CANARY_B) && !a.contains(CANARY_JOB), "{a}");
    assert!(b.contains(CANARY_B) && !b.contains(CANARY_A) && !b.contains(CANARY_JOB), "{b}");
    assert!(a.lines().any(|l| l.starts_with("PATH=")), "the default set (PATH, HOME, ...) is inherited: {a}");
    // inherit_env passes more by name.
    let cfg = p.read("mcp-pin.toml").replacen("env = { A_KEY", "inherit_env = [\"JOB_TOKEN\"]\nenv = { A_KEY", 1);
    p.write("mcp-pin.toml", &cfg);
    let out = p.run_env(&["lock", "--server", "a"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(p.read("a.env").contains(CANARY_JOB));
    assert!(!text(&out).contains(CANARY_JOB), "{}", text(&out));
}

#[test]
fn under_ci_a_config_reads_only_the_variables_the_run_allows() {
    let p = Project::new();
    two_servers(&p);
    let env = [("A_SECRET", CANARY_A), ("B_SECRET", CANARY_B), ("CI", "true")];
    let out = p.run_env(&["lock"], &env);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("A_SECRET") && t.contains("--allow-env") && t.contains("mcp-pin.toml"), "{t}");
    assert!(!p.path("mcp.lock").exists());
    let out = p.run_env(&["lock", "--allow-env", "A_SECRET,B_SECRET"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let mut env2 = env.to_vec();
    env2.push(("MCP_PIN_ALLOW_ENV", "A_SECRET,B_SECRET"));
    assert_eq!(p.run_env(&["check"], &env2).status.code(), Some(0));
    // At a terminal (no CI), every variable resolves as before.
    assert_eq!(p.run_env(&["check"], &env[..2]).status.code(), Some(0));
}

#[test]
fn a_secret_too_short_to_mask_is_refused() {
    let p = Project::new();
    two_servers(&p);
    let out = p.run_env(&["lock"], &[("A_SECRET", "abc"), ("B_SECRET", CANARY_B)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("A_SECRET") && text(&out).contains("too short"), "{}", text(&out));
}

/// A server that answers every request with a redirect to `to`, counting the requests that
/// carried `X-Api-Key`.
fn redirector(to: String) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let keyed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let k = keyed.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(50) {
            let Ok(mut s) = stream else { continue };
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let Some((head, _)) = read_request(&mut s) else {
                continue;
            };
            if head.to_ascii_lowercase().contains("x-api-key:") {
                k.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            let _ = write!(
                s,
                "HTTP/1.1 307 Temporary Redirect\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            );
        }
    });
    (url, keyed)
}

#[test]
fn a_redirect_to_another_origin_is_refused_or_followed_without_the_headers() {
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}));
    // The other origin accepts only a request that carries the key: it would pin its surface
    // if the key were forwarded.
    let other = HttpFixture::start(&p.path("s.json"), &["--require-header", &format!("X-Api-Key: {CANARY_A}")]);
    let (url, keyed) = redirector(other.url.clone());
    let config = |extra: &str| {
        format!("[servers.r]\nurl = {url:?}\nheaders = {{ X-Api-Key = \"${{KEY}}\" }}\ntimeout = \"30s\"\n{extra}")
    };
    p.write("mcp-pin.toml", &config(""));
    let out = p.run_env(&["lock", "--no-probe"], &[("KEY", CANARY_A)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let t = text(&out);
    let other_origin = other.url.trim_end_matches("/mcp");
    assert!(t.contains("another origin") && t.contains(other_origin) && t.contains("allow_redirects"), "{t}");
    assert!(!t.contains(CANARY_A));
    assert!(keyed.load(std::sync::atomic::Ordering::SeqCst) >= 1, "the first origin gets its key");
    // Allowed: followed, but without the configured header, so the other origin refuses it.
    p.write("mcp-pin.toml", &config(&format!("allow_redirects = [{other_origin:?}]\n")));
    let out = p.run_env(&["lock", "--no-probe"], &[("KEY", CANARY_A)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("credentials") || text(&out).contains("401"), "{}", text(&out));
    assert!(!p.path("mcp.lock").exists() || !p.read("mcp.lock").contains("\"t\""));
}

#[test]
fn a_lockfile_that_is_not_a_regular_file_is_refused_at_once() {
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": []}));
    p.stdio_config(&[("s", "s.json")]);
    let made = Command::new("mkfifo").arg(p.path("mcp.lock")).status().map(|s| s.success()).unwrap_or(false);
    if !made {
        skip("no mkfifo here");
        return;
    }
    let start = Instant::now();
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("FIFO"), "{}", text(&out));
    assert!(start.elapsed() < Duration::from_secs(20));
    std::fs::remove_file(p.path("mcp.lock")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/dev/zero", p.path("mcp.lock")).unwrap();
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("device"), "{}", text(&out));
}

pub(crate) fn pid_alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
}

#[test]
#[cfg(target_os = "linux")]
fn a_signal_ends_every_server_mcp_pin_started() {
    for (signal, code) in [(nix::sys::signal::Signal::SIGTERM, 143), (nix::sys::signal::Signal::SIGINT, 130)] {
        let p = Project::new();
        p.write_json("s.json", &json!({"tools": [], "fault": "neverAnswer"}));
        p.write(
            "mcp-pin.toml",
            &format!("[servers.s]\ncommand = {:?}\nargs = [\"--surface\", \"s.json\", \"--dump-env\", \"s.env\"]\ntimeout = \"60s\"\n", fixture_bin()),
        );
        let child = Command::new(pin_bin())
            .args(["lock"])
            .current_dir(p.dir.path())
            .env_remove("CI")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let server_pid = loop {
            if let Some(pid) = std::fs::read_to_string(p.path("s.env"))
                .ok()
                .and_then(|t| t.lines().find_map(|l| l.strip_prefix("MCP_PIN_FIXTURE_PID=").map(str::to_string)))
            {
                break pid.parse::<i32>().unwrap();
            }
            assert!(Instant::now() < deadline, "the server never started");
            std::thread::sleep(Duration::from_millis(50));
        };
        std::thread::sleep(Duration::from_millis(300));
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{}", String::from_utf8_lossy(&out.stderr));
        let gone = Instant::now() + Duration::from_secs(5);
        while pid_alive(server_pid) && Instant::now() < gone {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!pid_alive(server_pid), "server {server_pid} outlived mcp-pin after {signal:?}");
    }
}

#[test]
fn concurrent_lock_runs_lose_no_update() {
    let p = Project::new();
    for name in ["a", "b", "c"] {
        p.write_json(
            &format!("{name}.json"),
            &json!({"tools": [{"name": format!("t_{name}"), "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}],
                    "calls": {format!("t_{name}"): {"delayMs": 600, "result": {"content": []}}}}),
        );
    }
    p.stdio_config(&[("a", "a.json"), ("b", "b.json"), ("c", "c.json")]);
    let runs: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|s| {
            Command::new(pin_bin())
                .args(["lock", "--server", s])
                .current_dir(p.dir.path())
                .env_remove("CI")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for r in runs {
        let out = r.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    for name in ["a", "b", "c"] {
        assert!(lock["servers"][name]["tools"][format!("t_{name}")].is_object(), "server {name} was lost:\n{lock:#}");
    }
}

/// An HTTP server whose answer is one SSE `data:` line that never ends.
fn endless_sse_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                if read_request(&mut s).is_none() {
                    return;
                }
                let _ =
                    write!(s, "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: ");
                let chunk = vec![b'x'; 1 << 20];
                // At most 1 GiB: the client must stop long before.
                for _ in 0..1024 {
                    if s.write_all(&chunk).is_err() {
                        break;
                    }
                }
            });
        }
    });
    url
}

#[test]
fn an_endless_sse_event_or_stdout_line_ends_with_a_clear_error() {
    let p = Project::new();
    let url = endless_sse_server();
    p.write("endless.sh", "#!/bin/sh\nexec head -c 300000000 /dev/zero\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p.path("endless.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    p.write(
        "mcp-pin.toml",
        // The per-message caps (256 MiB) under test: the surface's cap is raised above them.
        &format!("[servers.sse]\nurl = {url:?}\ntimeout = \"60s\"\nmax_listing_bytes = \"1GiB\"\n\n[servers.line]\ncommand = \"./endless.sh\"\ntimeout = \"60s\"\nmax_listing_bytes = \"1GiB\"\n"),
    );
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("an SSE event from the server is larger than 256 MiB"), "{t}");
    assert!(t.contains("a line of over 256 MiB") && t.contains("endless line"), "{t}");
}

#[test]
fn init_never_writes_a_secret_from_a_client_config_url() {
    let p = Project::new();
    let key = "sk-1canary1secret1";
    p.write(
        ".mcp.json",
        &json!({"mcpServers": {"r": {"type": "http", "url": format!("https://h1.example/mcp?v=1&apikey={key}")}}})
            .to_string(),
    );
    let out = p.run(&["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let toml = p.read("mcp-pin.toml");
    assert!(!toml.contains("canary") && !text(&out).contains("canary"), "{toml}");
    // Component by component: the host and path are intact, each value became a variable.
    assert!(toml.contains("https://h1.example/mcp?v=${") && toml.contains("&apikey=${"), "{toml}");
}

#[test]
fn check_says_when_it_runs_with_other_credentials_than_the_lock() {
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}));
    let fx = HttpFixture::start(&p.path("s.json"), &[]);
    let config = |headers: &str| format!("[servers.r]\nurl = {:?}\n{headers}probe = \"none\"\n", fx.url);
    p.write("mcp-pin.toml", &config("headers = { Authorization = \"Bearer ${TOKEN}\", X-Team = \"${TEAM}\" }\n"));
    let env = [("TOKEN", CANARY_A), ("TEAM", "team-blue")];
    assert_eq!(p.run_env(&["lock"], &env).status.code(), Some(0));
    let lock = p.read("mcp.lock");
    assert!(lock.contains("\"Authorization\"") && lock.contains("\"X-Team\"") && !lock.contains(CANARY_A), "{lock}");
    let out = p.run_env(&["check"], &env);
    assert!(!text(&out).contains("credentials differ"), "{}", text(&out));
    p.write("mcp-pin.toml", &config("headers = { Authorization = \"Bearer ${TOKEN}\" }\n"));
    let out = p.run_env(&["check"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = text(&out);
    assert!(
        t.contains("credentials differ") && t.contains("[Authorization, X-Team]") && t.contains("[Authorization]"),
        "{t}"
    );
    assert!(!t.contains(CANARY_A));
}

/// Pages answered just inside the timeout must not go on for ever: the timeout is one deadline
/// for the whole listing.
#[test]
fn a_slow_paginated_listing_ends_at_one_deadline() {
    let p = Project::new();
    let tools: Vec<serde_json::Value> =
        (0..40).map(|i| json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}})).collect();
    p.write_json("s.json", &json!({"tools": tools, "pageSize": 1, "fault": {"listDelayMs": 400}}));
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.slow]\ncommand = {:?}\nargs = [\"--surface\", \"s.json\"]\ntimeout = \"2s\"\nprobe = \"none\"\n",
            fixture_bin()
        ),
    );
    // Each page comes in 0.4 s, well inside the 2 s timeout; 40 pages would take 16 s.
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("tools/list (the whole listing") && t.contains("2s"), "{t}");
}
