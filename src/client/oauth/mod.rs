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
//! The credentials go to the authorization server only, and only to one the config allows and
//! the MCP server's own metadata names: `issuer` names it, and the protected-resource metadata
//! must list it; without `issuer`, only an authorization server on the MCP server's own origin
//! that the metadata lists is used. No other field carries a secret anywhere ([`outbound`]). A
//! token obtained is a secret like any other (masked in every output).
//!
//! Every exchange is bounded: each body is read through [`crate::client::body`] (at most
//! [`MAX_DOCUMENT`]), and one deadline, the server's `timeout`, covers discovery, every token
//! request and the MCP handshake after them.

mod authorization_code;
pub mod dpop;
pub mod grants;
pub mod outbound;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::http::error_chain;
use super::ClientError;
use crate::config::origin;
use crate::config::OAuth;

/// The largest document read from an authorization server, an IdP or the MCP server during
/// OAuth (metadata, token responses): real ones are a few KB.
pub const MAX_DOCUMENT: usize = 1 << 20;

pub(crate) fn fail(msg: String) -> ClientError {
    ClientError::Transport(format!("OAuth: {msg}"))
}

/// When OAuth and the handshake after it must be done: the connection's `timeout` from its start.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    pub at: tokio::time::Instant,
    /// The `timeout` it was set from, for messages.
    pub total: Duration,
}

impl Deadline {
    fn passed(&self, what: &str) -> ClientError {
        ClientError::Timeout {
            what: format!("OAuth ({what}; one `timeout` covers discovery, the token requests and the handshake)"),
            after: self.total,
        }
    }

    /// The time left, or the error that `what` ran out of it.
    pub fn left(&self, what: &str) -> Result<Duration, ClientError> {
        let left = self.at.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return Err(self.passed(what));
        }
        Ok(left)
    }
}

/// One HTTP exchange of the flows, the only way they talk to a server: sent before the
/// deadline, its body read through the bounded reader (at most [`MAX_DOCUMENT`]) before it too.
pub(crate) async fn exchange(
    req: reqwest::RequestBuilder,
    what: &str,
    deadline: Deadline,
) -> Result<(reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>), ClientError> {
    let resp = req.timeout(deadline.left(what)?).send().await.map_err(|e| {
        if e.is_timeout() {
            deadline.passed(what)
        } else {
            fail(format!("{what} failed: {}", error_chain(&e)))
        }
    })?;
    let (status, headers) = (resp.status(), resp.headers().clone());
    let meter = crate::client::body::Meter::new(what.to_string(), MAX_DOCUMENT);
    let body = crate::client::body::read(resp, meter, Some(deadline.at)).await.map_err(|e| match e {
        crate::client::body::BodyError::TooLarge { .. } | crate::client::body::BodyError::Surface { .. } => {
            fail(e.to_string())
        }
        // The client's own timeout may end the read a moment before the deadline's.
        _ if tokio::time::Instant::now() + Duration::from_millis(50) >= deadline.at => deadline.passed(what),
        other => fail(other.to_string()),
    })?;
    Ok((status, headers, body))
}

/// A JSON document, or `None` when the server has none there (not a success, not JSON).
pub(crate) async fn get_json(
    http: &reqwest::Client,
    url: &str,
    deadline: Deadline,
) -> Result<Option<Value>, ClientError> {
    let what = format!("the document at {url}");
    let (status, _, body) = exchange(http.get(url).header("accept", "application/json"), &what, deadline).await?;
    Ok(status.is_success().then(|| serde_json::from_slice(&body).ok()).flatten())
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
async fn challenge_metadata(
    http: &reqwest::Client,
    server: &str,
    deadline: Deadline,
) -> Result<Option<String>, ClientError> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "ping"});
    let req = http.post(server).header("accept", "application/json, text/event-stream").json(&body);
    let (_, headers, _) = exchange(req, "the MCP server's challenge", deadline).await?;
    Ok(resource_metadata(&headers))
}

fn resource_metadata(headers: &reqwest::header::HeaderMap) -> Option<String> {
    let header = headers.get(reqwest::header::WWW_AUTHENTICATE)?.to_str().ok()?.to_string();
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

/// A token for `server` by the configured grant, before `deadline` (the connection's `timeout`).
pub async fn authorize(
    http: &reqwest::Client,
    server: &str,
    cfg: &OAuth,
    deadline: Deadline,
) -> Result<Authorization, ClientError> {
    let found = discover(http, server, cfg, deadline).await?;
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
    let token = match cfg.grant {
        crate::config::Grant::ConformanceAuthorizationCode => {
            authorization_code::authorization_code(http, server, cfg, &found, key.as_deref(), deadline).await?
        }
        _ => grants::obtain(http, server, cfg, &found, key.as_deref(), deadline).await?,
    };
    Ok(Authorization { token, dpop: key })
}

/// Steps 1 and 2: the protected-resource metadata, the authorization server it names (checked
/// against the config) and that server's metadata and token endpoint.
pub async fn discover(
    http: &reqwest::Client,
    server: &str,
    cfg: &OAuth,
    deadline: Deadline,
) -> Result<Discovered, ClientError> {
    let server_url = reqwest::Url::parse(server).map_err(|e| fail(format!("invalid server URL: {e}")))?;
    // 1. Protected-resource metadata.
    let mut prm = None;
    for url in well_known(&server_url, "oauth-protected-resource") {
        if let Some(v) = get_json(http, &url, deadline).await? {
            prm = Some(v);
            break;
        }
    }
    if prm.is_none() {
        if let Some(url) = challenge_metadata(http, server, deadline).await? {
            // Only from the server's own origin: a challenge naming another origin is not followed.
            if reqwest::Url::parse(&url).is_ok_and(|u| origin(&u) == origin(&server_url)) {
                prm = get_json(http, &url, deadline).await?;
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
        // The configured issuer, and only when the server's own metadata names it too: a server
        // whose metadata names none does not get the credentials sent anywhere.
        Some(want) => {
            if named.is_empty() {
                return Err(fail(format!(
                    "the server's protected-resource metadata names no authorization server (`authorization_servers`), so it does not name the configured issuer {want} either; the credentials are sent only to an issuer the server's own metadata names"
                )));
            }
            if !named.iter().any(|n| n.trim_end_matches('/') == want.trim_end_matches('/')) {
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
            if let Some(v) = get_json(http, &url, deadline).await? {
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
