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
//! | `auth/dpop`, `auth/dpop-nonce` | none | `dpop = true`, with the adapter's authorization-code grant (`crate::client::oauth::authorization_code`) |
//!
//! The DPoP scenarios check the proof on an authorization-code token request. A CI gate has no
//! user to log in, so mcp-pin's configs offer no authorization-code grant; the adapter plays the
//! user against the suite's authorization server, which approves without one (dynamic client
//! registration, PKCE S256, the redirect read instead of followed), and the token request,
//! its DPoP proof and nonce retry, and every MCP request after it are the product's own.

use serde_json::Value;

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
