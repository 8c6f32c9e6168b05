//! The one rule for every field mcp-pin sends to an authorization server or an IdP (origins other
//! than the MCP server's): a value that came from a secret leaves only as one of the `oauth`
//! table's own values, in the field the flow defines for it, to the destination it is for.
//! Every other field (the `resource`, `grant_type`, a redirect URI, a state) is plain and must
//! carry no secret at all: not one of any server's or the job's (every value read from the
//! environment, in any spelling mcp-pin masks), nor one of the MCP server's URL (userinfo, query).
//! A request whose plain fields carry one is not sent; the error names the field, never the value.
//!
//! Every request of the flows builds its fields here ([`Fields`]) and is checked before it leaves
//! ([`Fields::checked`]); headers carry only the client's own credentials (`client_secret_basic`),
//! a DPoP proof and constants.

use super::fail;
use crate::client::ClientError;

/// Whether a field holds one of the `oauth` table's values, meant for this destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Own,
    Plain,
}

/// The fields of one request to an authorization server or IdP.
#[derive(Debug, Clone)]
pub struct Fields {
    /// The request, for messages ("the token request to https://auth.example").
    what: String,
    fields: Vec<(&'static str, String, Kind)>,
    /// Secrets of the MCP server's URL (userinfo, query values), which need not be registered.
    guarded: Vec<String>,
}

impl Fields {
    /// The fields of `what`, for a flow whose MCP server is `server` (its URL's secrets guarded).
    pub fn new(what: impl Into<String>, server: &str) -> Fields {
        Fields { what: what.into(), fields: Vec::new(), guarded: crate::config::url_secrets(server) }
    }

    /// A value of the `oauth` table in the field the flow defines for it (a client secret, an
    /// assertion, a scope): it may be a secret, and this is where it goes.
    pub fn own(mut self, name: &'static str, value: impl Into<String>) -> Fields {
        self.fields.push((name, value.into(), Kind::Own));
        self
    }

    /// Any other field: it must carry no secret.
    pub fn plain(mut self, name: &'static str, value: impl Into<String>) -> Fields {
        self.fields.push((name, value.into(), Kind::Plain));
        self
    }

    /// Add a field in place (client authentication, added per request).
    pub fn push_own(&mut self, name: &'static str, value: impl Into<String>) {
        self.fields.push((name, value.into(), Kind::Own));
    }

    /// What the request is, for messages.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The value of field `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(n, _, _)| *n == name).map(|(_, v, _)| v.as_str())
    }

    /// The rule, checked before the request is sent.
    pub fn checked(&self) -> Result<&Fields, ClientError> {
        for (name, value, kind) in &self.fields {
            if *kind == Kind::Plain && carries_secret(value, &self.guarded) {
                return Err(fail(format!(
                    "{} would carry a secret in `{name}`, to another origin than the MCP server's; mcp-pin does not send it{}",
                    self.what,
                    if *name == "resource" {
                        ". The server's URL holds a secret in its path, which the `resource` parameter (RFC 8707) would hand to the authorization server: a server reached with `oauth` cannot also have a secret in its URL's path"
                    } else {
                        ""
                    }
                )));
            }
        }
        Ok(self)
    }

    /// `application/x-www-form-urlencoded`.
    pub fn form(&self) -> String {
        self.fields.iter().map(|(k, v, _)| format!("{k}={}", percent(v))).collect::<Vec<_>>().join("&")
    }

    /// The fields as pairs (a query string).
    pub fn pairs(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.fields.iter().map(|(k, v, _)| (*k, v.as_str()))
    }
}

/// Whether `value` holds a registered secret (in any spelling mcp-pin masks) or one of `guarded`.
fn carries_secret(value: &str, guarded: &[String]) -> bool {
    matches!(crate::secrets::mask(value), std::borrow::Cow::Owned(_))
        || guarded.iter().any(|g| g.chars().count() >= crate::secrets::MIN_SECRET_LEN && value.contains(g.as_str()))
}

/// The MCP server's canonical URI for the `resource` parameter (RFC 8707, the MCP spec's
/// canonical server URI): scheme, host, port and path; never its userinfo, query or fragment.
pub fn resource_uri(server: &str) -> Result<String, ClientError> {
    let mut url = reqwest::Url::parse(server).map_err(|e| fail(format!("invalid server URL: {e}")))?;
    if url.username().is_empty() && url.password().is_none() && url.query().is_none() && url.fragment().is_none() {
        return Ok(server.to_string()); // as configured, to the byte
    }
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    Ok(url.to_string())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oauth_resource_is_the_canonical_uri_without_userinfo_query_or_fragment() {
        assert_eq!(
            resource_uri("https://user:pw@mcp.example.com:8443/v1/mcp?token=abc&x=1#f").unwrap(),
            "https://mcp.example.com:8443/v1/mcp"
        );
        assert_eq!(resource_uri("http://127.0.0.1:9/mcp").unwrap(), "http://127.0.0.1:9/mcp");
    }

    #[test]
    fn oauth_a_plain_field_with_a_secret_is_refused_an_own_one_is_not() {
        crate::secrets::register("outbound-canary-7d1e");
        let server = "https://mcp.example.com/mcp?key=query-canary-19ab";
        let ok = Fields::new("the token request to https://as", server)
            .plain("grant_type", "client_credentials")
            .own("client_secret", "outbound-canary-7d1e");
        assert!(ok.checked().is_ok());
        assert!(ok.form().contains("client_secret=outbound-canary-7d1e"));
        for bad in [
            "https://mcp.example.com/outbound-canary-7d1e/mcp",
            "https://mcp.example.com/mcp%3Fq%3Doutbound-canary-7d1e",
            "https://mcp.example.com/query-canary-19ab",
        ] {
            let e = Fields::new("the token request to https://as", server)
                .plain("resource", bad)
                .checked()
                .unwrap_err()
                .to_string();
            assert!(e.contains("`resource`") && !e.contains("canary"), "{e}");
        }
    }
}
