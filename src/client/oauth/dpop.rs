//! DPoP, proof of possession (RFC 9449): an ephemeral P-256 key made for the run and never
//! written anywhere; every token request and every HTTP request to the MCP server carries a
//! fresh proof (`DPoP: <jwt>`, typ `dpop+jwt`, the public key as `jwk`, `htm`, `htu` without
//! query or fragment, `iat`, a unique `jti`, and on resource requests `ath`, the hash of the
//! token), and the token goes as `Authorization: DPoP <token>`. A server that answers
//! `use_dpop_nonce` with a `DPoP-Nonce` header gets the request once more with that nonce
//! (RFC 9449 §8, §9); the nonce is kept for later requests.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use serde_json::{json, Value};
use sha2::Digest;

/// The header a proof travels in, and the one a server's nonce comes in.
pub const DPOP: &str = "dpop";
pub const DPOP_NONCE: &str = "dpop-nonce";

/// The run's proof key.
pub struct DpopKey {
    pair: EcdsaKeyPair,
    rng: SystemRandom,
    jwk: Value,
    counter: AtomicU64,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").field("jwk", &self.jwk).finish()
    }
}

impl DpopKey {
    /// A new ES256 key.
    pub fn generate() -> Result<DpopKey, String> {
        let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING)
            .map_err(|_| "cannot generate a DPoP key (P-256)".to_string())?;
        // The public key is the uncompressed point: 0x04 || x || y.
        let point = pair.public_key().as_ref().to_vec();
        if point.len() != 65 || point[0] != 4 {
            return Err("unexpected P-256 public key encoding".into());
        }
        let jwk = json!({"kty": "EC", "crv": "P-256", "x": B64.encode(&point[1..33]), "y": B64.encode(&point[33..])});
        Ok(DpopKey { pair, rng: SystemRandom::new(), jwk, counter: AtomicU64::new(0) })
    }

    /// The public key as a JWK (`kty`, `crv`, `x`, `y`; never the private part).
    pub fn jwk(&self) -> &Value {
        &self.jwk
    }

    /// A proof for one request: `htm` the method, `url` the request's URL (its query and
    /// fragment are left out), `ath` from `access_token` on resource requests, `nonce` when
    /// the server gave one.
    pub fn proof(
        &self,
        htm: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, String> {
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        // Unique per proof: the time, a per-key counter and the key itself.
        let jti = B64.encode(&sha2::Sha256::digest(format!("{}:{n}:{}", now.as_nanos(), self.jwk).as_bytes())[..16]);
        let mut claims = json!({"jti": jti, "htm": htm, "htu": htu(url), "iat": now.as_secs()});
        if let Some(t) = access_token {
            claims["ath"] = Value::String(ath(t));
        }
        if let Some(n) = nonce {
            claims["nonce"] = Value::String(n.to_string());
        }
        let input = format!("{}.{}", B64.encode(header.to_string()), B64.encode(claims.to_string()));
        let sig = self.pair.sign(&self.rng, input.as_bytes()).map_err(|_| "cannot sign a DPoP proof".to_string())?;
        Ok(format!("{input}.{}", B64.encode(sig.as_ref())))
    }
}

/// `base64url(sha256(token))`, the `ath` claim.
pub fn ath(token: &str) -> String {
    B64.encode(sha2::Sha256::digest(token.as_bytes()))
}

/// The URL without its query and fragment (RFC 9449 §4.2).
pub fn htu(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_string(),
    }
}

/// The nonce a server asks for: a `DPoP-Nonce` header on a 400 (token endpoint) or 401
/// (resource server) answer whose error is `use_dpop_nonce`.
pub fn nonce_challenge(status: u16, headers: &reqwest::header::HeaderMap, body: Option<&Value>) -> Option<String> {
    if status != 400 && status != 401 {
        return None;
    }
    let nonce = headers.get(DPOP_NONCE)?.to_str().ok()?.trim().to_string();
    let www = headers.get(reqwest::header::WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let in_body = body.and_then(|b| b.get("error")).and_then(Value::as_str) == Some("use_dpop_nonce");
    (!nonce.is_empty() && (www.contains("use_dpop_nonce") || in_body)).then_some(nonce)
}

/// A DPoP-bound token and the key it is bound to, for the requests to the MCP server.
pub struct Binding {
    pub key: Arc<DpopKey>,
    token: String,
    nonce: Mutex<Option<String>>,
}

impl std::fmt::Debug for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Binding").field("token", &"***").finish()
    }
}

impl Binding {
    pub fn new(key: Arc<DpopKey>, token: String) -> Binding {
        Binding { key, token, nonce: Mutex::new(None) }
    }

    /// `Authorization: DPoP <token>` and a fresh `DPoP` proof for `method url`.
    pub fn headers(&self, method: &str, url: &str) -> Result<[(http::HeaderName, http::HeaderValue); 2], String> {
        let nonce = self.nonce.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let proof = self.key.proof(method, url, Some(&self.token), nonce.as_deref())?;
        let mut auth = http::HeaderValue::from_str(&format!("DPoP {}", self.token))
            .map_err(|_| "the access token is not a valid header value".to_string())?;
        auth.set_sensitive(true);
        let mut proof = http::HeaderValue::from_str(&proof).map_err(|_| "invalid DPoP proof".to_string())?;
        proof.set_sensitive(true);
        Ok([(http::header::AUTHORIZATION, auth), (http::HeaderName::from_static(DPOP), proof)])
    }

    /// Keep a nonce the server gave (a challenge, or a fresh one on any answer).
    pub fn set_nonce(&self, nonce: String) {
        *self.nonce.lock().unwrap_or_else(|e| e.into_inner()) = Some(nonce);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(jwt: &str, i: usize) -> Value {
        serde_json::from_slice(&B64.decode(jwt.split('.').nth(i).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn oauth_dpop_proof_has_the_rfc_9449_header_and_claims() {
        let key = DpopKey::generate().unwrap();
        let p = key.proof("POST", "https://mcp.example.com/mcp?x=1#f", Some("tok-123"), Some("n-1")).unwrap();
        let (h, c) = (part(&p, 0), part(&p, 1));
        assert_eq!(h["typ"], "dpop+jwt");
        assert_eq!(h["alg"], "ES256");
        assert_eq!(h["jwk"]["kty"], "EC");
        assert_eq!(h["jwk"]["crv"], "P-256");
        assert!(h["jwk"].get("d").is_none(), "no private part");
        assert_eq!(c["htm"], "POST");
        assert_eq!(c["htu"], "https://mcp.example.com/mcp");
        assert_eq!(c["nonce"], "n-1");
        assert!(c["iat"].as_u64().unwrap() > 1_700_000_000);
        // ath = base64url(sha256(token)), unpadded.
        let want = B64.encode(sha2::Sha256::digest(b"tok-123"));
        assert_eq!(c["ath"], want.as_str());
        assert!(!want.contains('='));
        // A token request has no ath; every proof has its own jti.
        let q = key.proof("POST", "https://auth.example.com/token", None, None).unwrap();
        assert!(part(&q, 1).get("ath").is_none() && part(&q, 1).get("nonce").is_none());
        assert_ne!(part(&q, 1)["jti"], c["jti"]);
    }

    #[test]
    fn oauth_dpop_proof_signature_verifies_with_its_jwk() {
        use aws_lc_rs::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};
        let key = DpopKey::generate().unwrap();
        let p = key.proof("GET", "https://mcp.example.com/mcp", Some("t0k3n"), None).unwrap();
        let jwk = &part(&p, 0)["jwk"];
        let mut point = vec![4u8];
        point.extend(B64.decode(jwk["x"].as_str().unwrap()).unwrap());
        point.extend(B64.decode(jwk["y"].as_str().unwrap()).unwrap());
        let (input, sig) = p.rsplit_once('.').unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
            .verify(input.as_bytes(), &B64.decode(sig).unwrap())
            .expect("the proof verifies with the key in its header");
    }

    #[test]
    fn oauth_dpop_binding_sends_the_dpop_scheme_and_the_nonce() {
        let b = Binding::new(Arc::new(DpopKey::generate().unwrap()), "abc.def.ghi".into());
        let [(n1, auth), (n2, proof)] = b.headers("POST", "http://127.0.0.1:1/mcp").unwrap();
        assert_eq!((n1.as_str(), auth.to_str().unwrap()), ("authorization", "DPoP abc.def.ghi"));
        assert_eq!(n2.as_str(), "dpop");
        assert!(part(proof.to_str().unwrap(), 1).get("nonce").is_none());
        b.set_nonce("srv-nonce".into());
        let [_, (_, proof)] = b.headers("POST", "http://127.0.0.1:1/mcp").unwrap();
        assert_eq!(part(proof.to_str().unwrap(), 1)["nonce"], "srv-nonce");
    }

    #[test]
    fn oauth_dpop_nonce_challenge_needs_the_error_and_the_header() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(DPOP_NONCE, "n0nce".parse().unwrap());
        h.insert(reqwest::header::WWW_AUTHENTICATE, "DPoP error=\"use_dpop_nonce\"".parse().unwrap());
        assert_eq!(nonce_challenge(401, &h, None).as_deref(), Some("n0nce"));
        assert_eq!(nonce_challenge(200, &h, None), None);
        h.remove(reqwest::header::WWW_AUTHENTICATE);
        assert_eq!(nonce_challenge(400, &h, None), None);
        assert_eq!(nonce_challenge(400, &h, Some(&json!({"error": "use_dpop_nonce"}))).as_deref(), Some("n0nce"));
    }
}
