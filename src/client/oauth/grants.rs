//! Step 3 of [`super`]: the token request of each grant, its client authentication, and the
//! DPoP proof and nonce retry when the token is to be DPoP-bound.
//!
//! - `client-credentials`: `grant_type=client_credentials`.
//! - `jwt-bearer` (RFC 7523 §2.1, workload identity federation): the configured `assertion`
//!   (a JWT another issuer gave the workload, e.g. a CI OIDC token) is the grant. Client
//!   authentication is optional. A refused assertion is reported, never retried and never
//!   replaced by another grant.
//! - `enterprise-managed` (SEP-990): the `id_token` is exchanged at `idp_token_endpoint` for an
//!   identity assertion authorization grant (ID-JAG, RFC 8693 token exchange, audience the
//!   authorization server's issuer, resource the MCP server), which is then the JWT-bearer grant
//!   at the authorization server with the client's credentials.

use serde_json::Value;

use super::dpop::{self, DpopKey};
use super::outbound::{resource_uri, Fields};
use super::{exchange, fail, Deadline, Discovered};
use crate::client::ClientError;
use crate::config::origin;
use crate::config::{Grant, OAuth};

pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
pub const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
pub const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// How the client authenticates at a token endpoint.
pub enum ClientAuth<'a> {
    /// `client_secret_basic`.
    Basic { id: &'a str, secret: &'a str },
    /// `client_secret_post`.
    Post { id: &'a str, secret: &'a str },
    /// `private_key_jwt`: an assertion signed for `audience`, a new one for each request.
    PrivateKeyJwt { cfg: &'a OAuth, pem: &'a str, audience: &'a str },
    /// A public client: `client_id` only.
    Public { id: &'a str },
    /// None at all (a JWT-bearer assertion without a client).
    Anonymous,
}

/// The client authentication `cfg` gives, for an authorization server that supports `methods`.
pub fn client_auth<'a>(cfg: &'a OAuth, methods: &[&str], issuer: &'a str) -> ClientAuth<'a> {
    if let Some(pem) = &cfg.private_key {
        return ClientAuth::PrivateKeyJwt { cfg, pem, audience: issuer };
    }
    if cfg.client_id.is_empty() {
        return ClientAuth::Anonymous;
    }
    if cfg.client_secret.is_empty() {
        return ClientAuth::Public { id: &cfg.client_id };
    }
    let basic =
        methods.is_empty() || methods.contains(&"client_secret_basic") || !methods.contains(&"client_secret_post");
    if basic {
        ClientAuth::Basic { id: &cfg.client_id, secret: &cfg.client_secret }
    } else {
        ClientAuth::Post { id: &cfg.client_id, secret: &cfg.client_secret }
    }
}

/// The access token by the configured grant (step 3).
pub async fn obtain(
    http: &reqwest::Client,
    server: &str,
    cfg: &OAuth,
    found: &Discovered,
    key: Option<&DpopKey>,
    deadline: Deadline,
) -> Result<String, ClientError> {
    crate::secrets::register_credential(&cfg.client_secret);
    if let Some(k) = &cfg.private_key {
        crate::secrets::register_credential(k);
    }
    let what = format!("the token request ({} grant) to {}", cfg.grant.name(), origin(&found.token_url));
    let fields = Fields::new(what, server);
    let mut fields = match &cfg.grant {
        Grant::ClientCredentials => fields.plain("grant_type", "client_credentials"),
        Grant::JwtBearer { assertion } => {
            crate::secrets::register_credential(assertion);
            fields.plain("grant_type", JWT_BEARER).own("assertion", assertion.clone())
        }
        Grant::EnterpriseManaged { .. } => {
            let jag = id_jag(http, server, cfg, &found.issuer, deadline).await?;
            fields.plain("grant_type", JWT_BEARER).own("assertion", jag)
        }
        // The conformance adapter's grant has a flow of its own ([`super::authorize`] runs it).
        Grant::ConformanceAuthorizationCode => {
            return Err(fail("the authorization-code grant is not a token-endpoint grant of a config".into()))
        }
    };
    fields = fields.plain("resource", resource_uri(server)?);
    if let Some(s) = &cfg.scope {
        fields = fields.own("scope", s.clone());
    }
    let methods: Vec<&str> = found
        .metadata
        .get("token_endpoint_auth_methods_supported")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let auth = client_auth(cfg, &methods, &found.issuer);
    let v = token_request(http, &found.token_url, fields, &auth, key, deadline).await?;
    access_token(&v, key.is_some())
}

/// The `access_token` of a token response, registered as a secret. With DPoP, the token must
/// be DPoP-bound (`token_type` `DPoP`): a Bearer token in its place is refused.
pub fn access_token(v: &Value, dpop: bool) -> Result<String, ClientError> {
    let token = v
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| fail("the token response has no access_token".into()))?;
    crate::secrets::register(token);
    if dpop {
        let ty = v.get("token_type").and_then(Value::as_str).unwrap_or("");
        if !ty.eq_ignore_ascii_case("DPoP") {
            return Err(fail(format!(
                "`dpop = true`, but the authorization server issued a token of type `{ty}`, not a DPoP-bound one"
            )));
        }
    }
    Ok(token.to_string())
}

/// Enterprise-managed authorization, first step: the ID token for an ID-JAG at the IdP.
async fn id_jag(
    http: &reqwest::Client,
    server: &str,
    cfg: &OAuth,
    issuer: &str,
    deadline: Deadline,
) -> Result<String, ClientError> {
    let Grant::EnterpriseManaged { id_token, idp_token_endpoint, idp_client_id, idp_client_secret } = &cfg.grant else {
        return Err(fail("not an enterprise-managed grant".into()));
    };
    crate::secrets::register_credential(id_token);
    if let Some(s) = idp_client_secret {
        crate::secrets::register_credential(s);
    }
    let url = reqwest::Url::parse(idp_token_endpoint).map_err(|e| fail(format!("invalid idp_token_endpoint: {e}")))?;
    let mut fields = Fields::new(format!("the token exchange at the IdP {}", origin(&url)), server)
        .plain("grant_type", TOKEN_EXCHANGE)
        .plain("requested_token_type", ID_JAG)
        .own("subject_token", id_token.clone())
        .plain("subject_token_type", ID_TOKEN)
        .own("audience", issuer.to_string())
        .plain("resource", resource_uri(server)?);
    if let Some(s) = &cfg.scope {
        fields = fields.own("scope", s.clone());
    }
    let auth = match (idp_client_id, idp_client_secret) {
        (Some(id), Some(secret)) => ClientAuth::Basic { id, secret },
        (Some(id), None) => ClientAuth::Public { id },
        _ => ClientAuth::Anonymous,
    };
    let v = token_request(http, &url, fields, &auth, None, deadline).await?;
    if let Some(t) = v.get("issued_token_type").and_then(Value::as_str) {
        if t != ID_JAG {
            return Err(fail(format!("the IdP issued a `{t}`, not an ID-JAG ({ID_JAG})")));
        }
    }
    let jag = v
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| fail("the IdP's token exchange response has no access_token (the ID-JAG)".into()))?;
    crate::secrets::register_credential(jag);
    Ok(jag.to_string())
}

/// Percent-encoding of a `client_secret_basic` user or password (RFC 6749 §2.3.1).
fn basic_enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// One token request (`fields`, client authentication `auth`) and its JSON answer, its fields
/// checked by [`super::outbound`] before it is sent and its body read bounded before the
/// deadline. With `key`, a DPoP proof goes with it, and a `use_dpop_nonce` answer gets the
/// request once more with the server's nonce.
pub async fn token_request(
    http: &reqwest::Client,
    url: &reqwest::Url,
    fields: Fields,
    auth: &ClientAuth<'_>,
    key: Option<&DpopKey>,
    deadline: Deadline,
) -> Result<Value, ClientError> {
    let mut fields = fields;
    let mut basic = None;
    match auth {
        ClientAuth::Basic { id, secret } => basic = Some((basic_enc(id), basic_enc(secret))),
        ClientAuth::Post { id, secret } => {
            fields.push_own("client_id", id.to_string());
            fields.push_own("client_secret", secret.to_string());
        }
        ClientAuth::PrivateKeyJwt { cfg, pem, audience } => {
            fields.push_own("client_id", cfg.client_id.clone());
            fields.push_own("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
            fields.push_own("client_assertion", client_assertion(cfg, pem, audience)?);
        }
        ClientAuth::Public { id } => fields.push_own("client_id", id.to_string()),
        ClientAuth::Anonymous => {}
    }
    let body = fields.checked()?.form();
    let what = fields.what().to_string();
    let mut nonce: Option<String> = None;
    loop {
        let mut req = http
            .post(url.clone())
            .header("accept", "application/json")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.clone());
        if let Some((id, secret)) = &basic {
            req = req.basic_auth(id, Some(secret));
        }
        if let Some(k) = key {
            let proof = k.proof("POST", url.as_str(), None, nonce.as_deref()).map_err(fail)?;
            req = req.header(dpop::DPOP, proof);
        }
        let (status, headers, bytes) = exchange(req, &what, deadline).await?;
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(v);
        }
        if key.is_some() && nonce.is_none() {
            if let Some(n) = dpop::nonce_challenge(status.as_u16(), &headers, Some(&v)) {
                nonce = Some(n);
                continue;
            }
        }
        let why = v.get("error").and_then(Value::as_str).unwrap_or("no error code");
        return Err(fail(format!("{} refused {what} (HTTP {status}: {})", origin(url), crate::json::escape_line(why))));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(id: &str, secret: &str, grant: Grant) -> OAuth {
        OAuth {
            client_id: id.into(),
            client_secret: secret.into(),
            private_key: None,
            signing_algorithm: None,
            scope: None,
            issuer: None,
            trust_discovered_issuer: false,
            grant,
            dpop: false,
        }
    }

    #[test]
    fn oauth_client_auth_follows_the_config_and_the_servers_methods() {
        let c = cfg("id", "secret", Grant::ClientCredentials);
        assert!(matches!(client_auth(&c, &[], "https://as"), ClientAuth::Basic { .. }));
        assert!(matches!(client_auth(&c, &["client_secret_post"], "https://as"), ClientAuth::Post { .. }));
        let wif = cfg("", "", Grant::JwtBearer { assertion: "a.b.c".into() });
        assert!(matches!(client_auth(&wif, &["none"], "https://as"), ClientAuth::Anonymous));
        let public = cfg("workload", "", Grant::JwtBearer { assertion: "a.b.c".into() });
        assert!(matches!(client_auth(&public, &["none"], "https://as"), ClientAuth::Public { id: "workload" }));
        let mut keyed = cfg("id", "", Grant::ClientCredentials);
        keyed.private_key = Some("PEM".into());
        assert!(matches!(client_auth(&keyed, &[], "https://as"), ClientAuth::PrivateKeyJwt { .. }));
    }

    #[test]
    fn oauth_dpop_refuses_a_bearer_token_in_place_of_a_bound_one() {
        let bound = serde_json::json!({"access_token": "tok-bound-1", "token_type": "DPoP"});
        assert_eq!(access_token(&bound, true).unwrap(), "tok-bound-1");
        let bearer = serde_json::json!({"access_token": "tok-bearer-1", "token_type": "Bearer"});
        let e = access_token(&bearer, true).unwrap_err().to_string();
        assert!(e.contains("not a DPoP-bound one") && !e.contains("tok-bearer-1"), "{e}");
        assert_eq!(access_token(&bearer, false).unwrap(), "tok-bearer-1");
        assert_eq!(crate::secrets::mask("x tok-bearer-1 y"), "x *** y", "a token is a secret");
    }
}
