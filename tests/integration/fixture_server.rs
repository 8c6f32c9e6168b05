//! Integration tests of the fixture MCP server (`mcp-pin-fixture`), talking plain
//! line-based JSON-RPC over stdio and plain HTTP POSTs over Streamable HTTP, so that the
//! raw bytes on the wire can be checked without any MCP client library in the way.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

const T: Duration = Duration::from_secs(10);

fn surface(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/surfaces").join(name)
}

/// The exact line of a compact tool in a surface file (without the trailing comma).
fn tool_line(file: &Path, name: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let prefix = format!("{{\"name\":\"{name}\"");
    text.lines()
        .map(str::trim)
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no one-line tool {name} in {}", file.display()))
        .trim_end_matches(',')
        .to_owned()
}

/// The raw texts of `result.tools` and of `result.nextCursor` in a tools/list response.
fn raw_page(line: &str) -> (Vec<String>, Option<String>) {
    #[derive(Deserialize)]
    struct Msg<'a> {
        #[serde(borrow)]
        result: Page<'a>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Page<'a> {
        #[serde(borrow)]
        tools: Vec<&'a RawValue>,
        next_cursor: Option<String>,
    }
    let m: Msg<'_> = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    (m.result.tools.iter().map(|t| t.get().to_owned()).collect(), m.result.next_cursor)
}

fn raw_result(line: &str) -> String {
    #[derive(Deserialize)]
    struct Msg<'a> {
        #[serde(borrow)]
        result: &'a RawValue,
    }
    let m: Msg<'_> = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    m.result.get().to_owned()
}

fn json(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

fn names(tools: &[String]) -> Vec<String> {
    tools.iter().map(|t| json(t)["name"].as_str().unwrap().to_owned()).collect()
}

// ---------------------------------------------------------------------------------------
// stdio

struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StdioServer {
    fn start(surface: &Path) -> StdioServer {
        let mut child = Command::new(crate::common::fixture_bin())
            .arg("--surface")
            .arg(surface)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn fixture");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        StdioServer { child, stdin, lines }
    }

    fn send(&mut self, msg: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(msg.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn next_line(&self, timeout: Duration) -> Result<String, RecvTimeoutError> {
        self.lines.recv_timeout(timeout)
    }

    /// Wait for the response with this id, skipping anything else.
    fn response(&self, id: u64, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.next_line(left).ok()?;
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                if v.get("id").and_then(Value::as_u64) == Some(id) {
                    return Some(line);
                }
            }
        }
    }

    fn request(&mut self, id: u64, method: &str, params: &str) -> String {
        self.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#));
        self.response(id, T).unwrap_or_else(|| panic!("no response to {method} (id {id})"))
    }

    fn initialize(&mut self, version: &str) -> Value {
        let line = self.request(
            0,
            "initialize",
            &format!(
                r#"{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"fixture-test","version":"0"}}}}"#
            ),
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        json(&line)
    }

    fn call(&mut self, id: u64, tool: &str, args: &str) -> String {
        self.request(id, "tools/call", &format!(r#"{{"name":"{tool}","arguments":{args}}}"#))
    }
}

#[test]
fn stdio_serves_raw_tools_byte_for_byte() {
    let file = surface("raw.json");
    let mut s = StdioServer::start(&file);
    let init = s.initialize("2025-11-25");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["result"]["serverInfo"]["name"], "fixture-raw");
    assert_eq!(init["result"]["instructions"], "A fixture surface with unusual tools.");
    assert!(init["result"]["capabilities"]["tools"].is_object());

    let line = s.request(1, "tools/list", "{}");
    let (tools, next) = raw_page(&line);
    assert_eq!(next, None);
    assert_eq!(tools.len(), 8);
    // Unknown fields, unknown annotation keys, theme "sepia", 1e3 and 1.50, key order.
    let weird = tool_line(&file, "weird");
    assert!(weird.contains("1e3") && weird.contains("sepia") && weird.contains("x-vendor"));
    assert_eq!(tools[0], weird);
    // A pretty-printed tool comes back with only insignificant whitespace removed.
    assert_eq!(
        tools[1],
        r#"{"name":"pretty","description":"Written over several lines: \"quoted\" and  two  spaces","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}"#
    );
    assert_eq!(tools[3], tool_line(&file, "structured"));
}

#[test]
fn stdio_call_behaviours() {
    let mut s = StdioServer::start(&surface("raw.json"));
    s.initialize("2025-06-18");

    // Raw result with an unknown content block type, verbatim.
    let line = s.call(1, "hologram", "{}");
    assert_eq!(
        raw_result(&line),
        r#"{"content":[{"type":"hologram","depth":1e3},{"type":"text","text":"still here"}],"x-extra":true}"#
    );

    // JSON-RPC error behaviour.
    let v = json(&s.call(2, "broken", "{}"));
    assert_eq!(v["error"]["code"], -32602);
    assert_eq!(v["error"]["message"], "broken on purpose");

    // Unknown tool.
    let v = json(&s.call(3, "no-such-tool", "{}"));
    assert_eq!(v["error"]["code"], -32602);

    // Default: missing required argument.
    let v = json(&s.call(4, "pretty", "{}"));
    assert_eq!(
        v["result"],
        json(r#"{"content":[{"type":"text","text":"missing required argument: q"}],"isError":true}"#)
    );

    // Default: ok.
    let v = json(&s.call(5, "pretty", r#"{"q":"x"}"#));
    assert_eq!(v["result"], json(r#"{"content":[{"type":"text","text":"ok"}]}"#));

    // acceptIncomplete.
    let v = json(&s.call(6, "lenient", "{}"));
    assert_eq!(v["result"], json(r#"{"content":[{"type":"text","text":"ok"}]}"#));

    // outputSchema: a minimal valid structuredContent, and the same JSON as text.
    let v = json(&s.call(7, "structured", r#"{"city":"Oslo"}"#));
    let expected = json(r#"{"ok":false,"tags":[],"temp":0,"unit":"C","where":{"lat":0}}"#);
    assert_eq!(v["result"]["structuredContent"], expected);
    let text = v["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(json(text), expected);
    assert!(v["result"].get("isError").is_none());

    // delayMs.
    let started = Instant::now();
    let v = json(&s.call(8, "slow", "{}"));
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(v["result"]["content"][0]["text"], "ok");

    // hang: no answer, while other requests are still served.
    s.send(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"stuck","arguments":{}}}"#);
    let v = json(&s.request(10, "ping", "{}"));
    assert_eq!(v["result"], json("{}"));
    assert!(s.response(9, Duration::from_millis(400)).is_none());
    // The client gives up on it; the server keeps serving.
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#);
    let v = json(&s.call(11, "pretty", r#"{"q":"x"}"#));
    assert_eq!(v["result"]["content"][0]["text"], "ok");
}

#[test]
fn stdio_pagination_and_cursor_loop() {
    let mut s = StdioServer::start(&surface("paged.json"));
    s.initialize("2025-11-25");
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => format!(r#"{{"cursor":"{c}"}}"#),
            None => "{}".to_owned(),
        };
        let (tools, next) = raw_page(&s.request(100 + pages, "tools/list", &params));
        pages += 1;
        assert!(tools.len() <= 2);
        all.extend(names(&tools));
        match next {
            Some(n) => cursor = Some(n),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(all, ["t1", "t2", "t3", "t4", "t5"]);

    let v = json(&s.request(200, "tools/list", r#"{"cursor":"garbage"}"#));
    assert_eq!(v["error"]["code"], -32602);

    let mut s = StdioServer::start(&surface("cursor-loop.json"));
    s.initialize("2025-11-25");
    let (p1, c1) = raw_page(&s.request(1, "tools/list", "{}"));
    let (p2, c2) = raw_page(&s.request(2, "tools/list", &format!(r#"{{"cursor":"{}"}}"#, c1.clone().unwrap())));
    assert_eq!(names(&p1), ["a", "b"]);
    assert_eq!(names(&p2), ["c"]);
    let (p3, c3) = raw_page(&s.request(3, "tools/list", &format!(r#"{{"cursor":"{}"}}"#, c2.unwrap())));
    assert_eq!(p3, p1, "the last page's cursor leads back to the first page");
    assert_eq!(c3, c1);
}

#[test]
fn stdio_rereads_the_surface_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    std::fs::write(&file, r#"{"tools":[{"name":"one","inputSchema":{"type":"object"}}]}"#).unwrap();
    let mut s = StdioServer::start(&file);
    s.initialize("2025-11-25");
    assert_eq!(names(&raw_page(&s.request(1, "tools/list", "{}")).0), ["one"]);
    std::fs::write(
        &file,
        r#"{"tools":[{"name":"two","inputSchema":{"type":"object"}}],"calls":{"two":{"result":{"content":[],"v":2}}}}"#,
    )
    .unwrap();
    assert_eq!(names(&raw_page(&s.request(2, "tools/list", "{}")).0), ["two"]);
    assert_eq!(raw_result(&s.call(3, "two", "{}")), r#"{"content":[],"v":2}"#);
}

#[test]
fn stdio_discover_and_legacy_only() {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"}}"#;
    let mut s = StdioServer::start(&surface("paged.json"));
    let v = json(&s.request(1, "server/discover", &format!("{{{meta}}}")));
    let versions = v["result"]["supportedVersions"].as_array().unwrap();
    assert!(versions.iter().any(|x| x == "2026-07-28"));
    assert!(versions.iter().any(|x| x == "2025-11-25"));
    // A stateless 2026-07-28 tools/list: raw tools plus rmcp's cache hints.
    let line = s.request(2, "tools/list", &format!("{{{meta}}}"));
    assert_eq!(names(&raw_page(&line).0), ["t1", "t2"]);
    assert_eq!(json(&line)["result"]["resultType"], "complete");

    let mut s = StdioServer::start(&surface("legacy-only.json"));
    let v = json(&s.request(1, "server/discover", &format!("{{{meta}}}")));
    assert_eq!(v["error"]["code"], -32022);
    let init = s.initialize("2026-07-28");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn stdio_faults() {
    // exitDuringHandshake: the process dies on initialize without answering.
    let mut s = StdioServer::start(&surface("fault-exitDuringHandshake.json"));
    s.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
    assert_eq!(s.next_line(T), Err(RecvTimeoutError::Disconnected));
    let status = s.child.wait().unwrap();
    assert!(!status.success());

    // neverAnswer: nothing comes back, and closing stdin still ends the process.
    let mut s = StdioServer::start(&surface("fault-neverAnswer.json"));
    s.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
    assert_eq!(s.next_line(Duration::from_millis(500)), Err(RecvTimeoutError::Timeout));
    drop(s.stdin.take());
    let started = Instant::now();
    assert_eq!(s.next_line(T), Err(RecvTimeoutError::Disconnected));
    assert!(started.elapsed() < Duration::from_secs(5));

    // junkStdout: a non-JSON line before each message.
    let mut s = StdioServer::start(&surface("fault-junkStdout.json"));
    s.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
    let first = s.next_line(T).unwrap();
    assert!(serde_json::from_str::<Value>(&first).is_err(), "{first}");
    let second = s.next_line(T).unwrap();
    assert_eq!(json(&second)["id"], 0);

    // hugeToolList: 2 MB of generated tools after the file's own.
    let mut s = StdioServer::start(&surface("fault-hugeToolList.json"));
    s.initialize("2025-11-25");
    let line = s.request(1, "tools/list", "{}");
    assert!(line.len() > 2_000_000, "{} bytes", line.len());
    let (tools, _) = raw_page(&line);
    assert_eq!(names(&tools[..1]), ["echo"]);
    assert!(tools.len() > 100);

    // duplicateNames: duplicates are served as listed.
    let mut s = StdioServer::start(&surface("duplicate-names.json"));
    s.initialize("2025-11-25");
    let (tools, _) = raw_page(&s.request(1, "tools/list", "{}"));
    assert_eq!(names(&tools), ["dup", "dup"]);
}

#[test]
fn stdio_exits_when_stdin_closes() {
    let mut s = StdioServer::start(&surface("raw.json"));
    s.initialize("2025-11-25");
    drop(s.stdin.take());
    assert_eq!(s.next_line(T), Err(RecvTimeoutError::Disconnected));
    let status = s.child.wait().unwrap();
    assert!(status.success());
}

// ---------------------------------------------------------------------------------------
// Streamable HTTP

struct HttpServer {
    child: Child,
    url: String,
    client: reqwest::Client,
    session: Option<String>,
    auth: Option<(&'static str, &'static str)>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct HttpReply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl HttpReply {
    /// The JSON-RPC message with this id, from a JSON body or from an SSE stream.
    fn message(&self, id: u64) -> String {
        let ct = self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
        if ct.starts_with("text/event-stream") {
            for line in self.body.lines() {
                if let Some(data) = line.strip_prefix("data:") {
                    let data = data.trim_start();
                    if let Ok(v) = serde_json::from_str::<Value>(data) {
                        if v.get("id").and_then(Value::as_u64) == Some(id) {
                            return data.to_owned();
                        }
                    }
                }
            }
            panic!("no message with id {id} in SSE body: {}", self.body);
        }
        assert!(ct.starts_with("application/json"), "content-type {ct}");
        self.body.trim_end().to_owned()
    }
}

impl HttpServer {
    fn start(surface: &Path, extra: &[&str]) -> HttpServer {
        let mut child = Command::new(crate::common::fixture_bin())
            .arg("--surface")
            .arg(surface)
            .args(["--http", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn fixture");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let url = first
            .trim_end()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
        HttpServer { child, url, client: reqwest::Client::new(), session: None, auth: None }
    }

    async fn post(&self, body: &str) -> HttpReply {
        let mut req = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_owned());
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s).header("mcp-protocol-version", "2025-11-25");
        }
        if let Some((k, v)) = self.auth {
            req = req.header(k, v);
        }
        let resp = tokio::time::timeout(T, req.send()).await.unwrap().unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = tokio::time::timeout(T, resp.text()).await.unwrap().unwrap();
        HttpReply { status, headers, body }
    }

    async fn request(&self, id: u64, method: &str, params: &str) -> String {
        let reply = self.post(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.message(id)
    }

    async fn initialize(&mut self) -> Value {
        let reply = self
            .post(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fixture-test","version":"0"}}}"#)
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        self.session = reply.headers.get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
        let init = json(&reply.message(0));
        let r = self.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        assert_eq!(r.status, 202, "{}", r.body);
        init
    }
}

#[tokio::test]
async fn http_session_mode_serves_raw_tools() {
    let file = surface("raw.json");
    let mut h = HttpServer::start(&file, &[]);
    let init = h.initialize().await;
    assert!(h.session.is_some(), "session mode hands out Mcp-Session-Id");
    assert_eq!(init["result"]["serverInfo"]["name"], "fixture-raw");

    let (tools, _) = raw_page(&h.request(1, "tools/list", "{}").await);
    assert_eq!(tools[0], tool_line(&file, "weird"));
    assert_eq!(tools[3], tool_line(&file, "structured"));

    let line = h.request(2, "tools/call", r#"{"name":"hologram","arguments":{}}"#).await;
    assert_eq!(
        raw_result(&line),
        r#"{"content":[{"type":"hologram","depth":1e3},{"type":"text","text":"still here"}],"x-extra":true}"#
    );
    let v = json(&h.request(3, "tools/call", r#"{"name":"broken","arguments":{}}"#).await);
    assert_eq!(v["error"]["code"], -32602);
}

#[tokio::test]
async fn http_stateless_json_with_required_header_and_pages() {
    let mut h =
        HttpServer::start(&surface("paged.json"), &["--stateless", "--require-header", "Authorization: Bearer xyz"]);
    // Without the header: 401 and a Bearer challenge.
    let r = h
        .post(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#)
        .await;
    assert_eq!(r.status, 401);
    assert_eq!(r.headers.get("www-authenticate").unwrap(), "Bearer");
    h.auth = Some(("authorization", "Bearer wrong"));
    let r = h.post(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#).await;
    assert_eq!(r.status, 401);

    h.auth = Some(("authorization", "Bearer xyz"));
    let init = h.initialize().await;
    assert_eq!(init["result"]["serverInfo"]["name"], "fixture-paged");
    assert!(h.session.is_none(), "stateless mode has no session");

    let reply = h.post(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#).await;
    assert!(reply.headers["content-type"].to_str().unwrap().starts_with("application/json"));
    let (p1, c1) = raw_page(&reply.message(1));
    assert_eq!(names(&p1), ["t1", "t2"]);
    let (p2, c2) = raw_page(&h.request(2, "tools/list", &format!(r#"{{"cursor":"{}"}}"#, c1.unwrap())).await);
    assert_eq!(names(&p2), ["t3", "t4"]);
    let (p3, c3) = raw_page(&h.request(3, "tools/list", &format!(r#"{{"cursor":"{}"}}"#, c2.unwrap())).await);
    assert_eq!(names(&p3), ["t5"]);
    assert_eq!(c3, None);
}

#[tokio::test]
async fn http_2026_stateless_requests_and_huge_list() {
    let h = HttpServer::start(&surface("fault-hugeToolList.json"), &[]);
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"}}"#;
    let send = |id: u64, method: &'static str| {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{meta}}}}}"#);
        h.client
            .post(&h.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(body)
            .send()
    };
    let read = |resp: reqwest::Response| async move {
        assert_eq!(resp.status().as_u16(), 200);
        HttpReply { status: 200, headers: resp.headers().clone(), body: resp.text().await.unwrap() }
    };
    let discover = read(send(1, "server/discover").await.unwrap()).await;
    let v = json(&discover.message(1));
    assert!(v["result"]["supportedVersions"].as_array().unwrap().iter().any(|x| x == "2026-07-28"));
    let list = read(send(2, "tools/list").await.unwrap()).await;
    let line = list.message(2);
    assert!(line.len() > 2_000_000);
    let (tools, _) = raw_page(&line);
    assert_eq!(names(&tools[..1]), ["echo"]);
    assert_eq!(json(&line)["result"]["resultType"], "complete");
}

// ---------------------------------------------------------------------------------------
// Interop: rmcp's own client, with its default lifecycle, against the fixture.

async fn rmcp_client_lists(file: &Path) -> (Vec<String>, String) {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;
    let mut cmd = tokio::process::Command::new(crate::common::fixture_bin());
    cmd.arg("--surface").arg(file).stderr(Stdio::null());
    let client = tokio::time::timeout(T, ().serve(TokioChildProcess::new(cmd).unwrap())).await.unwrap().unwrap();
    let tools = tokio::time::timeout(T, client.list_all_tools()).await.unwrap().unwrap();
    let names = tools.iter().map(|t| t.name.to_string()).collect();
    let first = tools[0].name.to_string();
    let result = tokio::time::timeout(T, client.call_tool(CallToolRequestParams::new(first))).await.unwrap().unwrap();
    let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    let _ = client.cancel().await;
    (names, text)
}

#[tokio::test]
async fn rmcp_client_interop() {
    let (names, text) = rmcp_client_lists(&surface("paged.json")).await;
    assert_eq!(names, ["t1", "t2", "t3", "t4", "t5"]);
    assert_eq!(text, "ok");
    // A server without 2026-07-28 and without server/discover: the client falls back.
    let (names, text) = rmcp_client_lists(&surface("legacy-only.json")).await;
    assert_eq!(names, ["echo"]);
    assert_eq!(text, "ok");
}
