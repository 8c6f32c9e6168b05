//! The hidden `conformance-client` adapter's OAuth side: the settings the official conformance
//! suite's context (`MCP_CONFORMANCE_CONTEXT`) asks for, mapped onto the `oauth` table a user
//! would write, and the one flow no config can ask for.
//!
//! | scenario | context | as `oauth = {...}` |
//! |---|---|---|
//! | `auth/client-credentials-basic` | `client_id`, `client_secret` | `client_id`, `client_secret` |
//! | `auth/client-credentials-jwt` | `client_id`, `private_key_pem`, `signing_algorithm` | `client_id`, `private_key`, `signing_algorithm` |
//! | `auth/wif-jwt-bearer` | `client_id`, `valid_jwt` | `grant = "jwt-bearer"`, `assertion`, `client_id` |
//! | `auth/enterprise-managed-authorization` | `client_id`, `client_secret`, `idp_id_token`, `idp_token_endpoint`, `idp_client_id` | `grant = "enterprise-managed"`, `id_token`, `idp_token_endpoint`, `idp_client_id`, `client_id`, `client_secret` |
//! | `auth/dpop`, `auth/dpop-nonce` | none | `dpop = true`, with [`authorization_code`] as the grant |
//!
//! The DPoP scenarios check the proof on an authorization-code token request. A CI gate has no
//! user to log in, so mcp-pin's configs offer no authorization-code grant; the adapter plays the
//! user against the suite's authorization server, which approves without one (dynamic client
//! registration, PKCE S256, the redirect read instead of followed), and the token request,
//! its DPoP proof and nonce retry, and every MCP request after it are the product's own.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use serde_json::{json, Value};
use sha2::Digest;

use crate::client::http::origin;
use crate::client::oauth::dpop::DpopKey;
use crate::client::oauth::grants::{self, ClientAuth};
use crate::client::oauth::outbound::{resource_uri, Fields};
use crate::client::oauth::{exchange, fail, Deadline, Discovered};
use crate::client::ClientError;
use crate::config::{Grant, OAuth};

/// The `oauth` settings of the suite's context, if the scenario is an OAuth one.
pub fn oauth_from_context() -> Option<OAuth> {
    let scenario = crate::env_vars::get(crate::env_vars::MCP_CONFORMANCE_SCENARIO).unwrap_or_default();
    let ctx: Value = crate::env_vars::get(crate::env_vars::MCP_CONFORMANCE_CONTEXT)
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let get = |k: &str| ctx.get(k).and_then(Value::as_str).map(str::to_string);
    let base = |grant: Grant| OAuth {
        client_id: get("client_id").unwrap_or_default(),
        client_secret: String::new(),
        private_key: None,
        signing_algorithm: None,
        scope: None,
        issuer: get("issuer"),
        trust_discovered_issuer: true,
        grant,
        dpop: false,
    };
    if scenario.starts_with("auth/dpop") {
        return Some(OAuth { dpop: true, ..base(Grant::ConformanceAuthorizationCode) });
    }
    if let Some(assertion) = get("valid_jwt") {
        return Some(base(Grant::JwtBearer { assertion }));
    }
    if let (Some(id_token), Some(idp_token_endpoint)) = (get("idp_id_token"), get("idp_token_endpoint")) {
        return Some(OAuth {
            client_secret: get("client_secret")?,
            ..base(Grant::EnterpriseManaged {
                id_token,
                idp_token_endpoint,
                idp_client_id: get("idp_client_id"),
                idp_client_secret: None,
            })
        });
    }
    let private_key = get("private_key_pem");
    get("client_id")?;
    Some(OAuth {
        client_secret: if private_key.is_some() { String::new() } else { get("client_secret")? },
        signing_algorithm: get("signing_algorithm"),
        private_key,
        ..base(Grant::ClientCredentials)
    })
}

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
    grants::secret(&verifier);
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
    grants::secret(&code);
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
