//! OAuth 2.1 client credentials for a remote server, the non-interactive flow a CI job uses
//! (the `io.modelcontextprotocol/oauth-client-credentials` extension, SEP-1046):
//!
//! 1. the server's protected-resource metadata (RFC 9728): the well-known URL for the server's
//!    path, then the origin's, then the `resource_metadata` of a 401 challenge;
//! 2. its authorization server's metadata (RFC 8414, then OpenID discovery);
//! 3. a `client_credentials` token request with `client_secret_basic` (or `client_secret_post`
//!    when that is all the server supports) and the server as `resource` (RFC 8707).
//!
//! The client secret goes to the authorization server only, and only to one the config allows:
//! `issuer` names it; without `issuer`, only an authorization server on the MCP server's own
//! origin is used. A token obtained is a secret like any other (masked in every output).

use std::time::Duration;

use serde_json::Value;

use super::http::{error_chain, origin};
use super::ClientError;
use crate::config::OAuth;

fn fail(msg: String) -> ClientError {
    ClientError::Transport(format!("OAuth client credentials: {msg}"))
}

async fn get_json(http: &reqwest::Client, url: &str, timeout: Duration) -> Option<Value> {
    let resp = http.get(url).header("accept", "application/json").timeout(timeout).send().await.ok()?;
    if !resp.status().is_success() {
        return None;
    }
    let bytes = resp.bytes().await.ok()?;
    if bytes.len() > 1 << 20 {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

/// `origin/.well-known/NAME/path` and `origin/.well-known/NAME`, for a URL with a path.
fn well_known(url: &reqwest::Url, name: &str) -> Vec<String> {
    let base = format!("{}://{}", url.scheme(), url.host_str().unwrap_or(""));
    let base = match url.port() {
        Some(p) => format!("{base}:{p}"),
        None => base,
    };
    let path = url.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!("{base}/.well-known/{name}{path}"));
    }
    out.push(format!("{base}/.well-known/{name}"));
    out
}

/// The `resource_metadata` URL of a 401 challenge to an unauthenticated request.
async fn challenge_metadata(http: &reqwest::Client, server: &str, timeout: Duration) -> Option<String> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "ping"});
    let resp = http
        .post(server)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .timeout(timeout)
        .send()
        .await
        .ok()?;
    let header = resp.headers().get(reqwest::header::WWW_AUTHENTICATE)?.to_str().ok()?.to_string();
    let at = header.find("resource_metadata=")? + "resource_metadata=".len();
    let rest = &header[at..];
    let value =
        if let Some(r) = rest.strip_prefix('"') { r.split('"').next()? } else { rest.split([',', ' ']).next()? };
    Some(value.to_string())
}

/// A bearer token for `server` by the client-credentials grant.
pub async fn client_credentials_token(
    http: &reqwest::Client,
    server: &str,
    cfg: &OAuth,
    timeout: Duration,
) -> Result<String, ClientError> {
    let server_url = reqwest::Url::parse(server).map_err(|e| fail(format!("invalid server URL: {e}")))?;
    // 1. Protected-resource metadata.
    let mut prm = None;
    for url in well_known(&server_url, "oauth-protected-resource") {
        if let Some(v) = get_json(http, &url, timeout).await {
            prm = Some(v);
            break;
        }
    }
    if prm.is_none() {
        if let Some(url) = challenge_metadata(http, server, timeout).await {
            // Only from the server's own origin: a challenge naming another origin is not followed.
            if reqwest::Url::parse(&url).is_ok_and(|u| origin(&u) == origin(&server_url)) {
                prm = get_json(http, &url, timeout).await;
            }
        }
    }
    let prm = prm.ok_or_else(|| {
        fail(format!(
            "the server at {} publishes no protected-resource metadata (RFC 9728); set `headers` with a token instead",
            origin(&server_url)
        ))
    })?;
    let named: Vec<String> = prm
        .get("authorization_servers")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    // 2. Which authorization server the client secret may go to.
    let issuer = match &cfg.issuer {
        Some(want) => {
            if !named.is_empty() && !named.iter().any(|n| n.trim_end_matches('/') == want.trim_end_matches('/')) {
                return Err(fail(format!(
                    "the server names authorization server(s) {}, not the configured issuer {want}; the client secret is not sent",
                    named.join(", ")
                )));
            }
            want.clone()
        }
        None => {
            let first =
                named.first().ok_or_else(|| fail("the server's metadata names no authorization server".into()))?;
            let same_origin = reqwest::Url::parse(first).is_ok_and(|u| origin(&u) == origin(&server_url));
            if !same_origin && !cfg.trust_discovered_issuer {
                return Err(fail(format!(
                    "the server names authorization server {first}, another origin; to send the client secret there, set `issuer = \"{first}\"` in the server's `oauth` table"
                )));
            }
            first.clone()
        }
    };
    let issuer_url = reqwest::Url::parse(&issuer).map_err(|e| fail(format!("invalid issuer {issuer}: {e}")))?;
    let mut asm = None;
    for name in ["oauth-authorization-server", "openid-configuration"] {
        for url in well_known(&issuer_url, name) {
            if let Some(v) = get_json(http, &url, timeout).await {
                asm = Some(v);
                break;
            }
        }
        if asm.is_some() {
            break;
        }
    }
    let asm = asm.ok_or_else(|| fail(format!("no authorization server metadata at {issuer} (RFC 8414)")))?;
    let token_endpoint = asm
        .get("token_endpoint")
        .and_then(Value::as_str)
        .ok_or_else(|| fail(format!("the metadata of {issuer} has no token_endpoint")))?;
    let token_url = reqwest::Url::parse(token_endpoint).map_err(|e| fail(format!("invalid token_endpoint: {e}")))?;
    if origin(&token_url) != origin(&issuer_url) {
        return Err(fail(format!(
            "the token endpoint {} is not on the issuer's origin {}; the client secret is not sent",
            origin(&token_url),
            origin(&issuer_url)
        )));
    }
    let methods: Vec<&str> = asm
        .get("token_endpoint_auth_methods_supported")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let basic = cfg.private_key.is_none()
        && (methods.is_empty() || methods.contains(&"client_secret_basic") || !methods.contains(&"client_secret_post"));
    // 3. The token request.
    let mut form: Vec<(&str, String)> =
        vec![("grant_type", "client_credentials".into()), ("resource", server.to_string())];
    if let Some(s) = &cfg.scope {
        form.push(("scope", s.clone()));
    }
    let mut req = http.post(token_url.clone()).header("accept", "application/json").timeout(timeout);
    if basic {
        let enc = |s: &str| -> String {
            s.bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect()
        };
        req = req.basic_auth(enc(&cfg.client_id), Some(enc(&cfg.client_secret)));
    } else if let Some(key) = &cfg.private_key {
        form.push(("client_id", cfg.client_id.clone()));
        form.push(("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into()));
        form.push(("client_assertion", client_assertion(cfg, key, &issuer)?));
    } else {
        form.push(("client_id", cfg.client_id.clone()));
        form.push(("client_secret", cfg.client_secret.clone()));
    }
    let body: String = form.iter().map(|(k, v)| format!("{k}={}", percent(v))).collect::<Vec<_>>().join("&");
    let resp = req
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(|e| fail(format!("the token request to {} failed: {}", origin(&token_url), error_chain(&e))))?;
    let status = resp.status();
    let bytes = resp.bytes().await.map_err(|e| fail(format!("reading the token response: {e}")))?;
    let v: Value = serde_json::from_slice(&bytes[..bytes.len().min(1 << 20)]).unwrap_or(Value::Null);
    if !status.is_success() {
        let why = v.get("error").and_then(Value::as_str).unwrap_or("no error code");
        return Err(fail(format!("the authorization server refused the client credentials (HTTP {status}: {why})")));
    }
    let token = v
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| fail("the token response has no access_token".into()))?;
    crate::secrets::register(token);
    Ok(token.to_string())
}

/// `application/x-www-form-urlencoded` value encoding.
fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b if b.is_ascii_alphanumeric() || b"-._~".contains(&b) => (b as char).to_string(),
            b' ' => "+".to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// A signed JWT assertion for `private_key_jwt` (RFC 7523): issuer and subject the client id,
/// audience the authorization server's issuer, valid for a minute, never reused (`jti`).
fn client_assertion(cfg: &OAuth, key_pem: &str, issuer: &str) -> Result<String, ClientError> {
    use jsonwebtoken::{Algorithm, EncodingKey, Header};
    let alg = match cfg.signing_algorithm.as_deref().unwrap_or("ES256") {
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "RS256" => Algorithm::RS256,
        "PS256" => Algorithm::PS256,
        "EdDSA" => Algorithm::EdDSA,
        other => return Err(fail(format!("signing algorithm {other} is not supported"))),
    };
    let pem = key_pem.as_bytes();
    let key = match alg {
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(pem),
        _ => EncodingKey::from_rsa_pem(pem),
    }
    .map_err(|e| fail(format!("the private key is not a PEM key for {alg:?}: {e}")))?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let jti = crate::digest::sha256_of(format!("{}{now}{:?}", cfg.client_id, std::time::Instant::now()).as_bytes());
    let claims = serde_json::json!({
        "iss": cfg.client_id,
        "sub": cfg.client_id,
        "aud": issuer.trim_end_matches('/'),
        "iat": now,
        "exp": now + 60,
        "jti": jti,
    });
    jsonwebtoken::encode(&Header::new(alg), &claims, &key).map_err(|e| fail(format!("signing the assertion: {e}")))
}
