//! Bad servers: each fault gets a clear error naming the server and what to do, the other
//! servers are still checked, and the exit code says error (2) only after every server was tried.

use crate::common;

use std::path::PathBuf;

use common::*;
use serde_json::{json, Value};

fn fixture_surface(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/surfaces").join(name)
}

fn healthy() -> Value {
    json!({"tools": [{"name": "ping", "description": "Ping.", "inputSchema": {"type": "object"}}]})
}

/// A project with a healthy server `good` and a faulty one `bad` serving `surface`.
fn with_bad(surface: &str, timeout: &str) -> Project {
    let p = Project::new();
    p.write_json("good.json", &healthy());
    std::fs::copy(fixture_surface(surface), p.path("bad.json")).unwrap();
    let mut toml = String::new();
    for name in ["bad", "good"] {
        toml.push_str(&format!(
            "[servers.{name}]\ncommand = {:?}\nargs = [\"--surface\", \"{name}.json\"]\ntimeout = \"{timeout}\"\n\n",
            fixture_bin()
        ));
    }
    p.write("mcp-pin.toml", &toml);
    p
}

fn server<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["servers"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()
}

/// Lock must fail for `bad` (exit 2) with a message containing every `needle`, and still pin `good`.
fn lock_fails_clearly(p: &Project, needles: &[&str]) -> String {
    let out = p.run(&["lock", "--no-probe"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("`bad`"), "the error names the server: {all}");
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {all}");
    }
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert!(lock["servers"]["good"]["tools"]["ping"].is_object(), "the healthy server is still pinned: {all}");
    assert!(lock["servers"].get("bad").is_none());
    err
}

#[test]
fn server_exiting_during_the_handshake() {
    let p = with_bad("fault-exitDuringHandshake.json", "5s");
    lock_fails_clearly(&p, &["handshake", "exit"]);
}

#[test]
fn server_that_never_answers_times_out_and_is_killed() {
    let p = with_bad("fault-neverAnswer.json", "1s");
    let started = std::time::Instant::now();
    lock_fails_clearly(&p, &["no answer within"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // No fixture process serving this project's bad.json is left behind.
    let ps = std::process::Command::new("ps").args(["-eo", "pid,stat,args"]).output().unwrap();
    let ps = String::from_utf8_lossy(&ps.stdout);
    let bad = p.path("bad.json").display().to_string();
    let bad_rel = "bad.json";
    let left: Vec<&str> = ps
        .lines()
        .filter(|l| {
            l.contains("mcp-pin-fixture")
                && (l.contains(&bad) || (l.contains(bad_rel) && l.contains(&p.dir.path().display().to_string())))
        })
        .collect();
    assert!(left.is_empty(), "left running: {left:?}");
}

#[test]
fn junk_on_stdout_is_skipped_and_reported() {
    let p = with_bad("fault-junkStdout.json", "5s");
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("non-JSON on stdout") && err.contains("this line is not JSON-RPC"), "{}", text(&out));
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{report:#}");
    assert!(server(&report, "bad")["notes"].to_string().contains("non-JSON"), "{report:#}");
}

#[test]
fn duplicate_tool_names_are_an_error() {
    let p = with_bad("duplicate-names.json", "5s");
    lock_fails_clearly(&p, &["more than once"]);
}

#[test]
fn looping_pagination_cursor_is_an_error() {
    let p = with_bad("cursor-loop.json", "5s");
    lock_fails_clearly(&p, &["pagination loops"]);
}

#[test]
fn malformed_tools_are_errors_naming_the_problem() {
    let p = with_bad("raw.json", "5s");
    p.write_json("bad.json", &json!({"tools": [{"description": "no name", "inputSchema": {"type": "object"}}]}));
    lock_fails_clearly(&p, &["no `name`"]);
    p.write_json("bad.json", &json!({"tools": [{"name": "t", "inputSchema": "object"}]}));
    lock_fails_clearly(&p, &["inputSchema"]);
}

#[test]
fn tens_of_megabytes_of_tools_are_pinned() {
    let p = with_bad("raw.json", "60s");
    p.write_json("bad.json", &json!({"tools": [], "fault": {"hugeToolList": 30}, "pageSize": 5000}));
    // 30 MB (about 15,000 tools of 2 KB) is past the default 16 MiB: a clear error naming the
    // key, the other server still pinned.
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("more than 16 MiB") && text(&out).contains("max_listing_bytes"), "{}", text(&out));
    // That raised, past the default cap of 10,000 tools: a clear error too.
    let raised = |keys: &str| p.read("mcp-pin.toml").replacen("[servers.bad]\n", &format!("[servers.bad]\n{keys}"), 1);
    p.write("mcp-pin.toml", &raised("max_listing_bytes = \"64MiB\"\n"));
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("more than 10000 tools") && text(&out).contains("max_tools"), "{}", text(&out));
    // Both raised for the server that really has that many: pinned and checked clean.
    p.write("mcp-pin.toml", &raised("max_tools = 100000\n"));
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert!(lock["servers"]["bad"]["tools"].as_object().unwrap().len() > 1000);
    let (code, report) = p.check_json(&["--no-probe"]);
    assert_eq!(code, 0, "{:#}", report["counts"]);
}

#[test]
fn schema_nested_thousands_deep_is_a_clear_error_not_a_crash() {
    let p = with_bad("raw.json", "5s");
    // Written as text: a serde_json Value this deep would overflow the stack on drop.
    let deep = format!(
        "{{\"tools\":[{{\"name\":\"deep\",\"inputSchema\":{}{}}}]}}",
        "{\"type\":\"object\",\"properties\":{\"n\":".repeat(3000),
        "{\"type\":\"string\"}".to_string() + &"}}".repeat(3000)
    );
    p.write("bad.json", &deep);
    let out = p.run(&["lock", "--no-probe"]);
    assert_ne!(out.status.code(), Some(101), "panicked: {}", text(&out));
    assert!(out.status.code() == Some(2) || out.status.code() == Some(0), "{}", text(&out));
    if out.status.code() == Some(2) {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("`bad`") && (err.contains("deep") || err.contains("nest")), "{}", text(&out));
    }
}

#[test]
fn unreachable_http_server_is_a_clear_error() {
    let p = Project::new();
    p.write_json("good.json", &healthy());
    // A port nothing listens on.
    let port = dead_port();
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.bad]\nurl = \"http://127.0.0.1:{port}/mcp\"\ntimeout = \"3s\"\n\n[servers.good]\ncommand = {:?}\nargs = [\"--surface\", \"good.json\"]\n",
            fixture_bin()
        ),
    );
    lock_fails_clearly(&p, &["connect"]);
}

#[test]
fn http_401_says_to_set_headers() {
    let p = Project::new();
    p.write_json("good.json", &healthy());
    p.write_json("s.json", &healthy());
    let fx = HttpFixture::start(&p.path("s.json"), &["--require-header", "Authorization: Bearer right"]);
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.bad]\nurl = {:?}\nheaders = {{ Authorization = \"Bearer wrong-secret-value\" }}\ntimeout = \"5s\"\n\n[servers.good]\ncommand = {:?}\nargs = [\"--surface\", \"good.json\"]\n",
            fx.url,
            fixture_bin()
        ),
    );
    let err = lock_fails_clearly(&p, &["needs credentials", "headers"]);
    assert!(!err.contains("wrong-secret-value"));
    // Headers were sent: the server refused them, so "set `headers`" would mislead (it fails on
    // the code before this change, which said just that).
    assert!(err.contains("refused the headers sent (`Authorization`)") && !err.contains("set `headers`"), "{err}");
    // With the right header it works.
    p.write(
        "mcp-pin.toml",
        &format!("[servers.bad]\nurl = {:?}\nheaders = {{ Authorization = \"Bearer right\" }}\n", fx.url),
    );
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn broken_and_newer_lockfiles_are_clear_errors() {
    let p = Project::new();
    p.write_json("good.json", &healthy());
    p.stdio_config(&[("good", "good.json")]);
    p.write("mcp.lock", "{\n  \"lockfileVersion\": 1,\n  \"servers\": {\n    \"good\": {\n");
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 5") && err.contains("mcp.lock"), "{err}");
    // lock refuses to overwrite a lock it cannot read (it would lose the other entries).
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    p.write("mcp.lock", "{\"lockfileVersion\": 7, \"servers\": {}}");
    let out = p.run(&["check", "--no-probe"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("upgrade mcp-pin"));
}

#[test]
fn config_errors_name_the_line_and_the_variable() {
    let p = Project::new();
    p.write("mcp-pin.toml", "[servers.a]\ncommand = \"x\"\nargz = [\"y\"]\n");
    let out = p.run(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("argz") && err.contains("mcp-pin.toml:3:") && err.contains("did you mean `args`"), "{err}");
    p.write("mcp-pin.toml", "[servers.a]\ncommand = \"x\"\nenv = { K = \"${MCP_PIN_SURELY_UNSET_VAR}\" }\n");
    let out = p.run(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MCP_PIN_SURELY_UNSET_VAR") && err.contains("`a`"), "{err}");
}

/// A broken HTTP endpoint on 127.0.0.1 that answers every request with one canned response.
fn canned_http(response: &'static str) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for stream in listener.incoming().take(64) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 8192];
            let _ = s.set_read_timeout(Some(std::time::Duration::from_millis(500)));
            let _ = s.read(&mut buf);
            let _ = s.write_all(response.as_bytes());
        }
    });
    port
}

fn http_fault(response: &'static str, needles: &[&str]) -> String {
    fault_at("http", response, needles)
}

/// Lock a healthy server and a `scheme://` one that answers `response`: the bad one fails clearly.
/// (The timeout is generous: these faults fail at once, and on a loaded machine a tight timeout
/// would turn the error under test into a timeout.)
fn fault_at(scheme: &str, response: &'static str, needles: &[&str]) -> String {
    let port = canned_http(response);
    let p = Project::new();
    p.write_json("good.json", &healthy());
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.bad]\nurl = \"{scheme}://127.0.0.1:{port}/mcp\"\ntimeout = \"15s\"\n\n[servers.good]\ncommand = {:?}\nargs = [\"--surface\", \"good.json\"]\n",
            fixture_bin()
        ),
    );
    lock_fails_clearly(&p, needles)
}

/// Whether a server needs credentials is read from the status of its answer, never from digits
/// anywhere in an error's text (a port such as `:44017` once made a refused connection read as
/// a 401 under a loaded run).
#[test]
fn a_status_is_read_from_the_answer_never_from_the_text_of_an_error() {
    let body = "error 4013: upstream 403";
    let response: &'static str = Box::leak(
        format!("HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len())
            .into_boxed_str(),
    );
    let err = http_fault(response, &["500"]);
    assert!(!err.contains("needs credentials"), "{err}");
    // A 401 without a challenge still needs credentials.
    http_fault(
        "HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        &["needs credentials", "401"],
    );
}

#[test]
fn http_403_404_and_5xx_are_clear_errors() {
    http_fault(
        "HTTP/1.1 403 Forbidden\r\nWWW-Authenticate: Bearer error=\"insufficient_scope\"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        &["needs credentials", "403"],
    );
    http_fault(
        "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot found",
        &["404"],
    );
    http_fault(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\ndown",
        &["503"],
    );
}

#[test]
fn html_or_garbage_instead_of_mcp_is_a_clear_error() {
    http_fault(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 15\r\nconnection: close\r\n\r\n<html>hi</html>",
        &["bad"],
    );
}

#[test]
fn tls_to_a_plain_http_port_is_a_clear_error() {
    fault_at("https", "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n", &["connect"]);
}

#[test]
fn lock_with_every_server_failing_writes_nothing_and_says_so() {
    let p = Project::new();
    p.write("mcp-pin.toml", "[servers.bad]\ncommand = \"/nonexistent/mcp-server\"\n");
    let out = p.run(&["lock", "--no-probe"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("not written: no server could be pinned"), "{all}");
    assert!(!all.contains("unchanged"), "there was no lockfile to leave unchanged: {all}");
    assert!(!p.path("mcp.lock").exists());
}
