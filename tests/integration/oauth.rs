//! OAuth for CI end to end: `mcp-pin lock` against a local authorization server and MCP server
//! (in this test) with `grant = "jwt-bearer"` and `dpop = true`, and with
//! `grant = "enterprise-managed"`. The servers check what the client sends (the grant, the DPoP
//! proof's header and claims, `ath`, the nonces) and the outputs never hold a credential.

use crate::common;

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use serde_json::{json, Value};
use sha2::Digest;

const WIF: &str = "eyJ.wif-assertion-canary.sig";
const ID_TOKEN: &str = "eyJ.id-token-canary.sig";
const JAG: &str = "eyJ.id-jag-canary.sig";
const TOKEN: &str = "access-token-canary-7f3a";
const SECRET: &str = "client-secret-canary";

#[derive(Default)]
struct Seen {
    base: String,
    problems: Vec<String>,
    token_requests: usize,
    exchanges: usize,
    rs_challenges: usize,
    mcp_requests: usize,
    jtis: Vec<String>,
}

type S = Arc<Mutex<Seen>>;

fn json_response(status: StatusCode, v: Value, extra: &[(&str, &str)]) -> Response {
    let mut r = (status, [("content-type", "application/json")], v.to_string()).into_response();
    for (k, val) in extra {
        r.headers_mut().insert(axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(), val.parse().unwrap());
    }
    r
}

fn form(body: &Bytes) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(body);
    reqwest::Url::parse(&format!("http://x/?{text}"))
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
}

fn field(f: &[(String, String)], k: &str) -> Option<String> {
    f.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
}

/// The header and claims of a DPoP proof (its signature is checked by the unit tests).
fn proof(headers: &HeaderMap) -> Option<(Value, Value)> {
    let p = headers.get("dpop")?.to_str().ok()?;
    let part = |i: usize| -> Option<Value> { serde_json::from_slice(&B64.decode(p.split('.').nth(i)?).ok()?).ok() };
    Some((part(0)?, part(1)?))
}

async fn token(State(s): State<S>, headers: HeaderMap, body: Bytes) -> Response {
    let f = form(&body);
    let mut seen = s.lock().unwrap();
    seen.token_requests += 1;
    let base = seen.base.clone();
    let grant = field(&f, "grant_type").unwrap_or_default();
    if grant != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
        seen.problems.push(format!("grant_type {grant}"));
    }
    if field(&f, "resource").as_deref() != Some(&format!("{base}/mcp")) {
        seen.problems.push("resource".into());
    }
    let assertion = field(&f, "assertion").unwrap_or_default();
    if assertion == JAG {
        // Enterprise-managed: client_secret_basic with the configured client.
        let want =
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("mcp-client:{SECRET}")));
        if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(want.as_str()) {
            seen.problems.push("client_secret_basic".into());
        }
        return json_response(StatusCode::OK, json!({"access_token": TOKEN, "token_type": "Bearer"}), &[]);
    }
    if assertion != WIF {
        seen.problems.push("assertion".into());
    }
    let Some((h, c)) = proof(&headers) else {
        seen.problems.push("no DPoP proof at the token endpoint".into());
        return json_response(StatusCode::BAD_REQUEST, json!({"error": "invalid_dpop_proof"}), &[]);
    };
    if h["typ"] != "dpop+jwt" || h["alg"] != "ES256" || h["jwk"]["kty"] != "EC" || h["jwk"].get("d").is_some() {
        seen.problems.push(format!("token proof header {h}"));
    }
    if c["htm"] != "POST" || c["htu"] != format!("{base}/token") || c.get("ath").is_some() || !c["iat"].is_u64() {
        seen.problems.push(format!("token proof claims {c}"));
    }
    if c["nonce"] != "as-nonce" {
        return json_response(
            StatusCode::BAD_REQUEST,
            json!({"error": "use_dpop_nonce"}),
            &[("dpop-nonce", "as-nonce")],
        );
    }
    json_response(StatusCode::OK, json!({"access_token": TOKEN, "token_type": "DPoP", "expires_in": 60}), &[])
}

async fn idp_token(State(s): State<S>, body: Bytes) -> Response {
    let f = form(&body);
    let mut seen = s.lock().unwrap();
    seen.exchanges += 1;
    let base = seen.base.clone();
    let want = [
        ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange".to_string()),
        ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag".into()),
        ("subject_token", ID_TOKEN.into()),
        ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token".into()),
        ("audience", base.clone()),
        ("resource", format!("{base}/mcp")),
        ("client_id", "idp-client".into()),
    ];
    for (k, v) in want {
        if field(&f, k).as_deref() != Some(v.as_str()) {
            seen.problems.push(format!("token exchange {k}: {:?}", field(&f, k)));
        }
    }
    json_response(
        StatusCode::OK,
        json!({"access_token": JAG, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"}),
        &[],
    )
}

async fn mcp(State(s): State<S>, headers: HeaderMap, body: Bytes) -> Response {
    let mut seen = s.lock().unwrap();
    seen.mcp_requests += 1;
    let base = seen.base.clone();
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    if let Some((h, c)) = proof(&headers) {
        if auth != format!("DPoP {TOKEN}") {
            seen.problems.push(format!("scheme: {}", auth.split(' ').next().unwrap_or("")));
        }
        let ath = B64.encode(sha2::Sha256::digest(TOKEN.as_bytes()));
        if h["typ"] != "dpop+jwt" || c["htm"] != "POST" || c["htu"] != format!("{base}/mcp") || c["ath"] != ath.as_str()
        {
            seen.problems.push(format!("resource proof {h} {c}"));
        }
        let jti = c["jti"].as_str().unwrap_or("").to_string();
        if seen.jtis.contains(&jti) {
            seen.problems.push("a proof was reused".into());
        }
        seen.jtis.push(jti);
        if c["nonce"] != "rs-nonce" {
            seen.rs_challenges += 1;
            return json_response(
                StatusCode::UNAUTHORIZED,
                json!({"error": "use_dpop_nonce"}),
                &[("www-authenticate", "DPoP error=\"use_dpop_nonce\""), ("dpop-nonce", "rs-nonce")],
            );
        }
    } else if auth != format!("Bearer {TOKEN}") {
        return json_response(
            StatusCode::UNAUTHORIZED,
            json!({"error": "invalid_token"}),
            &[("www-authenticate", "Bearer")],
        );
    }
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let Some(id) = msg.get("id").cloned() else { return StatusCode::ACCEPTED.into_response() };
    let result = match msg["method"].as_str().unwrap_or("") {
        "initialize" => json!({
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "oauth-test", "version": "1.0.0"}
        }),
        "tools/list" => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        _ => json!({}),
    };
    json_response(StatusCode::OK, json!({"jsonrpc": "2.0", "id": id, "result": result}), &[])
}

/// The authorization server, the IdP and the MCP server on one local origin.
async fn serve() -> S {
    let seen: S = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    seen.lock().unwrap().base = base.clone();
    let (b1, b2) = (base.clone(), base.clone());
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(move || async move {
                json_response(
                    StatusCode::OK,
                    json!({"resource": format!("{b1}/mcp"), "authorization_servers": [b1]}),
                    &[],
                )
            }),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || async move {
                json_response(
                    StatusCode::OK,
                    json!({
                        "issuer": b2,
                        "token_endpoint": format!("{b2}/token"),
                        "grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
                        "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
                        "dpop_signing_alg_values_supported": ["ES256"]
                    }),
                    &[],
                )
            }),
        )
        .route("/token", post(token))
        .route("/idp/token", post(idp_token))
        .route("/mcp", post(mcp).get(|| async { StatusCode::METHOD_NOT_ALLOWED }))
        .with_state(seen.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    seen
}

async fn lock(seen: &S, oauth: &str, env: Vec<(&'static str, &'static str)>) -> (common::Project, String) {
    let base = seen.lock().unwrap().base.clone();
    let p = common::Project::new();
    p.write("mcp-pin.toml", &format!("[servers.r]\nurl = \"{base}/mcp\"\ntimeout = \"10s\"\noauth = {oauth}\n"));
    let dir = p.dir.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        let mut cmd = std::process::Command::new(common::pin_bin());
        cmd.arg("lock").current_dir(dir).env("NO_COLOR", "1").env_remove("GITHUB_ACTIONS").env_remove("CI");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    })
    .await
    .unwrap();
    let text = common::text(&out);
    assert!(out.status.success(), "{text}");
    (p, text)
}

fn assert_no_credentials(p: &common::Project, text: &str) {
    let lock = p.read("mcp.lock");
    assert!(lock.contains("\"echo\""), "{lock}");
    for c in [WIF, ID_TOKEN, JAG, TOKEN, SECRET] {
        assert!(!lock.contains(c) && !text.contains(c), "{c} leaked:\n{text}\n{lock}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn jwt_bearer_grant_with_a_dpop_bound_token() {
    let seen = serve().await;
    let (p, text) = lock(
        &seen,
        r#"{ grant = "jwt-bearer", assertion = "${WIF_TOKEN}", client_id = "workload-1", dpop = true }"#,
        vec![("WIF_TOKEN", WIF)],
    )
    .await;
    assert_no_credentials(&p, &text);
    let seen = seen.lock().unwrap();
    assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    // Each connection (`lock` may open more than one) gets its token: one request, then once
    // more with the authorization server's nonce; the MCP server's nonce is asked for once per
    // connection (a new key each), then sent on every request.
    assert!(seen.rs_challenges >= 1, "no DPoP request reached the MCP server");
    assert_eq!(seen.token_requests, 2 * seen.rs_challenges, "two token requests a connection");
    assert!(
        seen.mcp_requests >= 3 * seen.rs_challenges,
        "initialize, its nonce retry, tools/list: {}",
        seen.mcp_requests
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn enterprise_managed_grant_exchanges_the_id_token_for_an_id_jag() {
    let seen = serve().await;
    let base = seen.lock().unwrap().base.clone();
    let oauth = r#"{ grant = "enterprise-managed", id_token = "${IDT}", idp_token_endpoint = "IDP/idp/token", idp_client_id = "idp-client", client_id = "mcp-client", client_secret = "${SECRET}" }"#
        .replace("IDP", &base);
    let (p, text) = lock(&seen, &oauth, vec![("IDT", ID_TOKEN), ("SECRET", SECRET)]).await;
    assert_no_credentials(&p, &text);
    let seen = seen.lock().unwrap();
    assert!(seen.problems.is_empty(), "{:?}", seen.problems);
    assert!(seen.exchanges >= 1 && seen.exchanges == seen.token_requests, "one exchange per token request");
}
