//! OAuth 2.1 for a remote server, the non-interactive flows a CI job uses:
//!
//! 1. the server's protected-resource metadata (RFC 9728): the well-known URL for the server's
//!    path, then the origin's, then the `resource_metadata` of a 401 challenge;
//! 2. its authorization server's metadata (RFC 8414, then OpenID discovery);
//! 3. a token request with the server as `resource` (RFC 8707), by the configured grant
//!    ([`grants`]): `client_credentials` (the `io.modelcontextprotocol/oauth-client-credentials`
//!    extension, SEP-1046) with `client_secret_basic` (or `client_secret_post` when that is all
//!    the server supports) or `private_key_jwt`; a JWT-bearer assertion (RFC 7523 §2.1, workload
//!    identity federation, SEP-1933); or enterprise-managed authorization (SEP-990): an ID token
//!    exchanged at the IdP for an ID-JAG (RFC 8693), then that JWT-bearer grant;
//! 4. with `dpop = true`, a DPoP-bound token ([`dpop`], RFC 9449, SEP-1932).
//!
//! The credentials go to the authorization server only, and only to one the config allows:
//! `issuer` names it; without `issuer`, only an authorization server on the MCP server's own
//! origin is used. A token obtained is a secret like any other (masked in every output).

pub mod dpop;
pub mod grants;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::http::origin;
use super::ClientError;
use crate::config::OAuth;

pub(crate) fn fail(msg: String) -> ClientError {
    ClientError::Transport(format!("OAuth: {msg}"))
}

pub(crate) async fn get_json(http: &reqwest::Client, url: &str, timeout: Duration) -> Option<Value> {
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

/// A token for the MCP server, and the DPoP key it is bound to (with `dpop = true`).
pub struct Authorization {
    pub token: String,
    pub dpop: Option<Arc<dpop::DpopKey>>,
}

/// What discovery found: the authorization server the credentials may go to.
pub struct Discovered {
    pub issuer: String,
    pub metadata: Value,
    pub token_url: reqwest::Url,
}

/// A token for `server` by the configured grant.
pub async fn authorize(
    http: &reqwest::Client,
    server: &str,
    cfg: &OAuth,
    timeout: Duration,
) -> Result<Authorization, ClientError> {
    let found = discover(http, server, cfg, timeout).await?;
    let key = if cfg.dpop {
        let algs: Vec<&str> = found
            .metadata
            .get("dpop_signing_alg_values_supported")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !algs.is_empty() && !algs.contains(&"ES256") {
            return Err(fail(format!(
                "`dpop = true`, but the authorization server {} signs DPoP with {} only; mcp-pin's proofs are ES256",
                found.issuer,
                algs.join(", ")
            )));
        }
        Some(Arc::new(dpop::DpopKey::generate().map_err(fail)?))
    } else {
        None
    };
    let token = grants::obtain(http, server, cfg, &found, key.as_deref(), timeout).await?;
    Ok(Authorization { token, dpop: key })
}

/// Steps 1 and 2: the protected-resource metadata, the authorization server it names (checked
/// against the config) and that server's metadata and token endpoint.
pub async fn discover(
    http: &reqwest::Client,
    server: &str,
    cfg: &OAuth,
    timeout: Duration,
) -> Result<Discovered, ClientError> {
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
    // 2. Which authorization server the credentials may go to.
    let issuer = match &cfg.issuer {
        Some(want) => {
            if !named.is_empty() && !named.iter().any(|n| n.trim_end_matches('/') == want.trim_end_matches('/')) {
                return Err(fail(format!(
                    "the server names authorization server(s) {}, not the configured issuer {want}; the credentials are not sent",
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
                    "the server names authorization server {first}, another origin; to send the credentials there, set `issuer = \"{first}\"` in the server's `oauth` table"
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
            "the token endpoint {} is not on the issuer's origin {}; the credentials are not sent",
            origin(&token_url),
            origin(&issuer_url)
        )));
    }
    Ok(Discovered { issuer, metadata: asm, token_url })
}
