//! Per-tool digests, as the draft proposals SEP-2636 (`schemaHash`) and SEP-3140 (`contentHash`)
//! would have servers send them: SHA-256 over the RFC 8785 (JCS) canonical JSON of the tool,
//! written `sha256-<base64url>` (unpadded). `lock` records one for every tool
//! (`servers.NAME.digests`, derived from the tool exactly as pinned); when a server sends a digest
//! of its own, it is compared with the tool it sent, and a mismatch is `tool-digest-mismatch`.
//!
//! What is hashed: the tool object as sent, without the digest claims themselves (a top-level
//! `schemaHash` or `contentHash`, and `_meta` keys ending in `schemaHash` or `contentHash`), so a
//! server can put its digest inside the object it describes.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::Value;
use sha2::Digest;

use crate::change::Change;

/// The names a claimed digest may have (top level, or the end of a `_meta` key).
pub const CLAIM_KEYS: [&str; 2] = ["schemaHash", "contentHash"];

/// `sha256-<base64url>` of `bytes`.
pub fn sha256_of(bytes: &[u8]) -> String {
    format!("sha256-{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(bytes)))
}

/// The RFC 8785 canonical text of `v`.
pub fn canonical(v: &Value) -> String {
    serde_jcs::to_string(v).unwrap_or_else(|_| v.to_string())
}

/// `tool` without the digests it claims for itself.
fn without_claims(tool: &Value) -> Value {
    let mut t = tool.clone();
    if let Value::Object(m) = &mut t {
        for k in CLAIM_KEYS {
            m.remove(k);
        }
        if let Some(Value::Object(meta)) = m.get_mut("_meta") {
            meta.retain(|k, _| !CLAIM_KEYS.iter().any(|c| k.ends_with(c)));
            if meta.is_empty() {
                m.remove("_meta");
            }
        }
    }
    t
}

/// The digest of one tool definition.
pub fn tool_digest(tool: &Value) -> String {
    sha256_of(canonical(&without_claims(tool)).as_bytes())
}

/// Every digest `tool` claims for itself: (JSON pointer, value).
pub fn claims(tool: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for k in CLAIM_KEYS {
        if let Some(Value::String(s)) = tool.get(k) {
            out.push((format!("/{k}"), s.clone()));
        }
    }
    if let Some(Value::Object(meta)) = tool.get("_meta") {
        for (k, v) in meta {
            if let (true, Value::String(s)) = (CLAIM_KEYS.iter().any(|c| k.ends_with(c)), v) {
                out.push((format!("/_meta/{}", k.replace('~', "~0").replace('/', "~1")), s.clone()));
            }
        }
    }
    out
}

/// The tools whose claimed digest is not the digest of what the server sent. A claim in another
/// algorithm than SHA-256 cannot be checked and is not a mismatch.
pub fn mismatches<'a>(tools: impl IntoIterator<Item = (&'a String, &'a Value)>) -> Vec<Change> {
    let mut out = Vec::new();
    for (name, tool) in tools {
        let claimed = claims(tool);
        if claimed.is_empty() {
            continue;
        }
        let actual = tool_digest(tool);
        for (pointer, claim) in claimed {
            if claim.starts_with("sha256-") && claim != actual {
                out.push(Change {
                    rule: crate::rules::RuleId::ToolDigestMismatch,
                    class: crate::rules::RuleId::ToolDigestMismatch.class(),
                    tool: Some(name.clone()),
                    pointer,
                    message: format!(
                        "tool {} claims digest {claim} but what it sent hashes to {actual} (SHA-256 over RFC 8785 JSON)",
                        crate::json::escape_line(name)
                    ),
                    before: Some(Value::String(claim)),
                    after: Some(Value::String(actual.clone())),
                    cues: None,
                });
            }
        }
    }
    out
}

/// The digests of `tools`, by name.
pub fn digests(tools: &BTreeMap<String, Value>) -> BTreeMap<String, String> {
    tools.iter().map(|(k, v)| (k.clone(), tool_digest(v))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8785 section 3.2.2 and 3.2.3: the canonical form of its own examples.
    #[test]
    fn canonical_json_is_rfc_8785() {
        let v: Value = serde_json::from_str(
            r#"{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}"#,
        )
        .unwrap();
        assert_eq!(
            canonical(&v),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
        let sorting: Value = serde_json::from_str(
            r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#,
        )
        .unwrap();
        let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(&canonical(&sorting))
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let _ = keys; // serde_json's map order is its own; check the text instead
        let text = canonical(&sorting);
        let pos = |s: &str| text.find(s).unwrap();
        assert!(pos("\\r") < pos("\"1\"") && pos("\"1\"") < pos("\u{0080}") && pos("\u{0080}") < pos("ö"));
        assert!(pos("ö") < pos("€") && pos("€") < pos("😀") && pos("😀") < pos("\u{fb33}"));
    }

    #[test]
    fn digest_ignores_its_own_claims_and_spelling() {
        let a: Value = serde_json::from_str(r#"{"name":"t","inputSchema":{"type":"object","b":1.0,"a":2}}"#).unwrap();
        let b: Value =
            serde_json::from_str(r#"{ "inputSchema": {"a": 2, "b": 1, "type": "object"}, "name": "t" }"#).unwrap();
        assert_eq!(tool_digest(&a), tool_digest(&b));
        assert!(tool_digest(&a).starts_with("sha256-") && tool_digest(&a).len() == 7 + 43);
        let mut claimed = a.clone();
        claimed["schemaHash"] = Value::String(tool_digest(&a));
        claimed["_meta"] = serde_json::json!({"io.modelcontextprotocol/contentHash": tool_digest(&a)});
        let tools = BTreeMap::from([("t".to_string(), claimed.clone())]);
        assert!(mismatches(&tools).is_empty());
        claimed["description"] = Value::String("changed after hashing".into());
        let found = mismatches(&BTreeMap::from([("t".to_string(), claimed)]));
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].rule, crate::rules::RuleId::ToolDigestMismatch);
    }
}
