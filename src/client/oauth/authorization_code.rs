//! The authorization-code grant, for the official conformance suite only (`Grant::ConformanceAuthorizationCode`,
//! which no config can ask for: a CI gate has no user to log in). The suite's DPoP scenarios
//! check the proof on an authorization-code token request; the conformance adapter
//! (`app::conformance`) plays the user against the suite's authorization server, which approves
//! without one (dynamic client registration, PKCE S256, the redirect read instead of followed),
//! and the token request, its DPoP proof and nonce retry are the product's own.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use serde_json::{json, Value};
use sha2::Digest;

use super::dpop::DpopKey;
use super::grants::{self, ClientAuth};
use super::outbound::{resource_uri, Fields};
use super::{exchange, fail, Deadline, Discovered};
use crate::client::ClientError;
use crate::config::origin;
use crate::config::OAuth;

/// A random base64url string of `n` bytes.
fn random(n: usize) -> Result<String, ClientError> {
    use aws_lc_rs::rand::SecureRandom;
    let mut buf = vec![0u8; n];
    aws_lc_rs::rand::SystemRandom::new().fill(&mut buf).map_err(|_| fail("no randomness".into()))?;
    Ok(B64.encode(buf))
}

/// The adapter's authorization-code grant against the suite's authorization server: register
/// (RFC 7591), ask the authorization endpoint (PKCE S256, RFC 8707 `resource`) and read the
/// code from its redirect, then the product's token request (with DPoP when `key` is given).
pub async fn authorization_code(
    http: &reqwest::Client,
    server: &str,
    cfg: &OAuth,
    found: &Discovered,
    key: Option<&DpopKey>,
    deadline: Deadline,
) -> Result<String, ClientError> {
    let meta = &found.metadata;
    let endpoint = |k: &str| -> Result<reqwest::Url, ClientError> {
        let u = meta
            .get(k)
            .and_then(Value::as_str)
            .and_then(|u| reqwest::Url::parse(u).ok())
            .ok_or_else(|| fail(format!("the authorization server's metadata has no {k}")))?;
        if origin(&u) != origin(&found.token_url) {
            return Err(fail(format!("the {k} is not on the authorization server's origin")));
        }
        Ok(u)
    };
    let redirect_uri = "http://127.0.0.1:1/callback";
    let client_id = if cfg.client_id.is_empty() {
        let req = http.post(endpoint("registration_endpoint")?).json(&json!({
            "client_name": "mcp-pin conformance adapter",
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "application_type": "native",
        }));
        let (_, _, body) = exchange(req, "client registration", deadline).await?;
        let v: Value = serde_json::from_slice(&body).map_err(|e| fail(format!("client registration: {e}")))?;
        v.get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| fail("the registration response has no client_id".into()))?
            .to_string()
    } else {
        cfg.client_id.clone()
    };
    let verifier = random(32)?;
    crate::secrets::register_credential(&verifier);
    let challenge = B64.encode(sha2::Sha256::digest(verifier.as_bytes()));
    let state = random(16)?;
    let mut auth_url = endpoint("authorization_endpoint")?;
    let mut query = Fields::new("the authorization request", server)
        .plain("response_type", "code")
        .own("client_id", client_id.clone())
        .plain("redirect_uri", redirect_uri)
        .plain("code_challenge", challenge)
        .plain("code_challenge_method", "S256")
        .plain("state", state.clone())
        .plain("resource", resource_uri(server)?);
    if let Some(s) = &cfg.scope {
        query = query.own("scope", s.clone());
    }
    auth_url.query_pairs_mut().extend_pairs(query.checked()?.pairs());
    // The redirect to the callback (another origin) is not followed: it is the answer.
    let (status, headers, _) = exchange(http.get(auth_url), "the authorization request", deadline).await?;
    let location = headers
        .get(reqwest::header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .and_then(|l| reqwest::Url::parse(l).ok())
        .ok_or_else(|| fail(format!("the authorization endpoint answered HTTP {status} without a redirect")))?;
    let param = |k: &str| location.query_pairs().find(|(n, _)| n == k).map(|(_, v)| v.to_string());
    if param("state").as_deref() != Some(state.as_str()) {
        return Err(fail("the authorization redirect's state does not match".into()));
    }
    let code = param("code").ok_or_else(|| fail("the authorization redirect has no code".into()))?;
    crate::secrets::register_credential(&code);
    let fields = Fields::new("the authorization-code token request", server)
        .plain("grant_type", "authorization_code")
        .own("code", code)
        .plain("redirect_uri", redirect_uri)
        .own("code_verifier", verifier)
        .plain("resource", resource_uri(server)?);
    let v =
        grants::token_request(http, &found.token_url, fields, &ClientAuth::Public { id: &client_id }, key, deadline)
            .await?;
    grants::access_token(&v, key.is_some())
}
