//! Raw capture of JSON-RPC responses.
//!
//! rmcp types every message it receives, and its typed `Tool` and `CallToolResult` are lossy (unknown
//! fields dropped, an unknown enum value fails the whole message). mcp-pin needs the server's exact
//! JSON, so both transports pass every incoming message through [`Capture::inspect`] before rmcp
//! sees it: responses are stored by JSON-RPC id, and a message rmcp could not decode is replaced
//! by a JSON-RPC error with the same id, so rmcp's pending request resolves while the raw text
//! stays here for mcp-pin to read.

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::ServerJsonRpcMessage;
use serde::Deserialize;
use serde_json::value::RawValue;

/// How many bytes of an offending stdout line are kept for an error message.
pub const EXCERPT: usize = 200;

#[derive(Default)]
pub struct Capture {
    responses: Mutex<HashMap<String, String>>,
    junk: Mutex<Vec<String>>,
    undecodable: Mutex<Vec<String>>,
}

/// What to forward to rmcp for one incoming message.
pub enum Forward {
    /// The message as received.
    Same,
    /// A substitute (rmcp could not decode the original).
    Replace(String),
    /// Nothing (not JSON-RPC at all).
    Drop,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
}

/// Canonical key for a JSON-RPC id: its JSON text (`3`, `"abc"`).
pub fn id_key(raw_id: &str) -> String {
    raw_id.trim().to_string()
}

impl Capture {
    /// Look at one incoming JSON-RPC message text; store it if it is a response.
    pub fn inspect(&self, text: &str) -> Forward {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Forward::Drop;
        }
        let envelope: Envelope = match serde_json::from_str(trimmed) {
            Ok(e) => e,
            Err(_) => {
                let mut junk = self.junk.lock().unwrap();
                if junk.len() < 16 {
                    junk.push(excerpt(trimmed));
                }
                return Forward::Drop;
            }
        };
        let is_response = envelope.method.is_none();
        if let (Some(id), true) = (envelope.id, is_response) {
            self.responses
                .lock()
                .unwrap()
                .insert(id_key(id.get()), trimmed.to_string());
        }
        match serde_json::from_str::<ServerJsonRpcMessage>(trimmed) {
            Ok(_) => Forward::Same,
            Err(err) => {
                self.undecodable.lock().unwrap().push(err.to_string());
                match (envelope.id, is_response) {
                    (Some(id), true) => Forward::Replace(format!(
                        r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":-32603,"message":"mcp-pin: rmcp could not decode this response; mcp-pin reads it raw"}}}}"#,
                        id.get()
                    )),
                    // A request or notification rmcp cannot type: rmcp would fail on it too.
                    _ => Forward::Drop,
                }
            }
        }
    }

    /// Take the raw text of the response to request `id` (JSON text of the id).
    pub fn take(&self, id: &str) -> Option<String> {
        self.responses.lock().unwrap().remove(&id_key(id))
    }

    /// Lines the server printed on stdout that were not JSON (first few, truncated).
    pub fn junk(&self) -> Vec<String> {
        self.junk.lock().unwrap().clone()
    }
}

/// A short, single-line excerpt of untrusted text for an error message.
pub fn excerpt(s: &str) -> String {
    let mut out: String = s.chars().take(EXCERPT).collect();
    if s.chars().count() > EXCERPT {
        out.push('…');
    }
    out.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The parts of a JSON-RPC response mcp-pin reads.
#[derive(Deserialize)]
pub struct RawResponse<'a> {
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_responses_by_id_and_replaces_undecodable() {
        let c = Capture::default();
        let ok = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
        assert!(matches!(c.inspect(ok), Forward::Same));
        assert_eq!(c.take("1").as_deref(), Some(ok));
        assert!(c.take("1").is_none());
        // A content block type rmcp does not know.
        let odd = r#"{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"hologram"}],"tools":5}}"#;
        match c.inspect(odd) {
            Forward::Replace(s) => assert!(s.contains(r#""id":"a""#)),
            Forward::Same => {} // rmcp may accept it as a generic result; raw is kept either way
            Forward::Drop => panic!("a response must never be dropped"),
        }
        assert_eq!(c.take("\"a\"").as_deref(), Some(odd));
    }

    #[test]
    fn junk_lines_are_dropped_and_remembered() {
        let c = Capture::default();
        assert!(matches!(c.inspect("Server starting on stdio..."), Forward::Drop));
        assert_eq!(c.junk(), vec!["Server starting on stdio...".to_string()]);
    }
}
