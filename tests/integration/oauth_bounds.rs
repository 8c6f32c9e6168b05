//! OAuth against hostile servers (a local authorization server and MCP server in this test):
//! every read is bounded in bytes and in time (one `timeout` for discovery, the token requests
//! and the handshake), the credentials never go to an issuer the server's own metadata does not
//! name, and no secret leaves in another field (the `resource` above all).

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

const SECRET: &str = "client-secret-canary-51c2";
const QUERY_SECRET: &str = "query-key-canary-8e0f";
const PATH_SECRET: &str = "path-key-canary-3b7d";
const TOKEN: &str = "access-token-canary-c4d1";

/// How the local servers misbehave.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    /// Everything as it should be.
    Honest,
    /// The protected-resource metadata never ends.
    EndlessMetadata,
    /// The authorization server's metadata comes a byte every 200 ms, for ever.
    TricklingMetadata,
    /// The protected-resource metadata names no authorization server.
    NamesNone,
    /// The authorization server's metadata takes 4 s, and the MCP server never answers.
    SlowThenSilent,
}

#[derive(Default)]
struct Seen {
    base: String,
    /// The body of every request to the token endpoint.
    token_requests: Vec<String>,
    /// Every request line, header and body any of the servers received, for leak checks.
    everything: Vec<String>,
}

type S = Arc<Mutex<(Mode, Seen)>>;

fn json_response(v: Value) -> Response {
    ([("content-type", "application/json")], v.to_string()).into_response()
}

fn mode_and_base(s: &S) -> (Mode, String) {
    let g = s.lock().unwrap();
    (g.0, g.1.base.clone())
}

async fn prm(State(s): State<S>) -> Response {
    let (mode, base) = mode_and_base(&s);
    match mode {
        Mode::EndlessMetadata => {
            let chunks = futures::stream::repeat_with(|| Ok::<_, std::io::Error>(Bytes::from(vec![b' '; 1 << 16])));
            let mut r = Body::from_stream(chunks).into_response();
            r.headers_mut().insert("content-type", "application/json".parse().unwrap());
            r
        }
        Mode::NamesNone => json_response(json!({"resource": format!("{base}/mcp")})),
        _ => json_response(json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]})),
    }
}

async fn asm(State(s): State<S>) -> Response {
    let (mode, base) = mode_and_base(&s);
    if mode == Mode::SlowThenSilent {
        tokio::time::sleep(Duration::from_secs(4)).await;
    }
    if mode == Mode::TricklingMetadata {
        let chunks = futures::stream::unfold((), |_| async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Some((Ok::<_, std::io::Error>(Bytes::from_static(b" ")), ()))
        });
        return Body::from_stream(chunks).into_response();
    }
    json_response(json!({
        "issuer": base,
        "token_endpoint": format!("{base}/token"),
        "token_endpoint_auth_methods_supported": ["client_secret_basic"]
    }))
}

async fn token(State(s): State<S>, headers: HeaderMap, body: Bytes) -> Response {
    let mut g = s.lock().unwrap();
    let text = String::from_utf8_lossy(&body).to_string();
    g.1.everything.push(format!("{headers:?} {text}"));
    g.1.token_requests.push(text);
    json_response(json!({"access_token": TOKEN, "token_type": "Bearer"}))
}

async fn mcp(State(s): State<S>, headers: HeaderMap, body: Bytes) -> Response {
    let mode = {
        let mut g = s.lock().unwrap();
        g.1.everything.push(format!("{headers:?}"));
        g.0
    };
    if mode == Mode::SlowThenSilent && headers.get("authorization").is_some() {
        tokio::time::sleep(Duration::from_secs(60)).await;
    }
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&format!("Bearer {TOKEN}")) {
        return (StatusCode::UNAUTHORIZED, [("www-authenticate", "Bearer")]).into_response();
    }
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let Some(id) = msg.get("id").cloned() else { return StatusCode::ACCEPTED.into_response() };
    let result = match msg["method"].as_str().unwrap_or("") {
        "initialize" => json!({"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                               "serverInfo": {"name": "oauth-bounds", "version": "1.0.0"}}),
        "tools/list" => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        _ => json!({}),
    };
    json_response(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

async fn serve(mode: Mode) -> S {
    let s: S = Arc::new(Mutex::new((mode, Seen::default())));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    s.lock().unwrap().1.base = base;
    let app = Router::new()
        .route("/.well-known/oauth-protected-resource/{*path}", get(prm))
        .route("/.well-known/oauth-authorization-server", get(asm))
        .route("/token", post(token))
        .route("/{*path}", post(mcp).get(|| async { StatusCode::METHOD_NOT_ALLOWED }))
        .with_state(s.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    s
}

/// `mcp-pin lock` of one server at `path` (under the local base URL) with `oauth` and `timeout`.
async fn lock(s: &S, path: &str, oauth: &str, timeout: &str) -> (std::process::Output, Duration) {
    let base = s.lock().unwrap().1.base.clone();
    let p = common::Project::new();
    p.write(
        "mcp-pin.toml",
        &format!("[servers.r]\nurl = \"{base}{path}\"\ntimeout = \"{timeout}\"\nprobe = \"none\"\noauth = {oauth}\n"),
    );
    let dir = p.dir.path().to_path_buf();
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(common::pin_bin())
            .arg("lock")
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("CI")
            .env("SECRET", SECRET)
            .env("QKEY", QUERY_SECRET)
            .env("PKEY", PATH_SECRET)
            .output()
            .unwrap();
        drop(p);
        out
    })
    .await
    .unwrap();
    (out, started.elapsed())
}

const CLIENT: &str = r#"{ client_id = "mcp-client", client_secret = "${SECRET}" }"#;

fn with_issuer(s: &S) -> String {
    let base = s.lock().unwrap().1.base.clone();
    format!(r#"{{ client_id = "mcp-client", client_secret = "${{SECRET}}", issuer = "{base}" }}"#)
}

#[tokio::test(flavor = "multi_thread")]
async fn oauth_an_endless_metadata_document_is_cut_at_its_cap() {
    let s = serve(Mode::EndlessMetadata).await;
    let (out, took) = lock(&s, "/mcp", CLIENT, "60s").await;
    let t = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("`r`") && t.contains("OAuth") && t.contains("larger than 1 MiB"), "{t}");
    assert!(took < Duration::from_secs(30), "stopped at the cap, not at the timeout: {took:?}");
    assert!(s.lock().unwrap().1.token_requests.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn oauth_one_timeout_covers_discovery_and_the_handshake() {
    let s = serve(Mode::TricklingMetadata).await;
    let (out, took) = lock(&s, "/mcp", CLIENT, "2s").await;
    let t = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("OAuth") && t.contains("no answer within 2s") && t.contains("`timeout`"), "{t}");
    // Discovery reads several documents; each used to get the whole timeout.
    assert!(took < Duration::from_secs(8), "one deadline: {took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn oauth_the_handshake_gets_what_is_left_of_the_timeout() {
    // OAuth takes 4 s of a 5 s timeout; the handshake then has 1 s, not 5 more.
    let s = serve(Mode::SlowThenSilent).await;
    let (out, took) = lock(&s, "/mcp", CLIENT, "5s").await;
    let t = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("OAuth and the handshake") && t.contains("no answer within 5s"), "{t}");
    assert_eq!(s.lock().unwrap().1.token_requests.len(), 1, "the token was obtained");
    assert!(took < Duration::from_secs(8), "one deadline for OAuth and the handshake: {took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn oauth_the_secret_never_goes_to_an_issuer_the_servers_metadata_does_not_name() {
    let s = serve(Mode::NamesNone).await;
    let oauth = with_issuer(&s);
    let (out, _) = lock(&s, "/mcp", &oauth, "20s").await;
    let t = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("names no authorization server") && !t.contains(SECRET), "{t}");
    assert!(s.lock().unwrap().1.token_requests.is_empty(), "no token request was sent");
    // Named, the same issuer gets the credentials.
    let s = serve(Mode::Honest).await;
    let oauth = with_issuer(&s);
    let (out, _) = lock(&s, "/mcp", &oauth, "20s").await;
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out));
    assert_eq!(s.lock().unwrap().1.token_requests.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn oauth_no_secret_of_the_server_url_leaves_in_the_resource() {
    // A secret in the URL's query: the token request's `resource` is the canonical URI without it.
    let s = serve(Mode::Honest).await;
    let (out, _) = lock(&s, "/mcp?key=${QKEY}", CLIENT, "20s").await;
    let t = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    let (form, base) = {
        let g = s.lock().unwrap();
        (g.1.token_requests[0].clone(), g.1.base.clone())
    };
    let resource = reqwest::Url::parse(&format!("http://x/?{form}"))
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "resource")
        .map(|(_, v)| v.to_string());
    assert_eq!(resource.as_deref(), Some(format!("{base}/mcp").as_str()));
    assert!(!form.contains(QUERY_SECRET) && !form.contains("canary-8e0f"), "{form}");
    // A secret in the URL's path would be the `resource`: the request is not sent at all.
    let s = serve(Mode::Honest).await;
    let (out, _) = lock(&s, "/p-${PKEY}/mcp", CLIENT, "20s").await;
    let t = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("`resource`") && !t.contains(PATH_SECRET), "{t}");
    let g = s.lock().unwrap();
    assert!(g.1.token_requests.is_empty(), "{:?}", g.1.token_requests);
    assert!(!g.1.everything.iter().any(|e| e.contains(SECRET)), "the client secret went nowhere");
}
