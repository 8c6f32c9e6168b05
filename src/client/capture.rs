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
    /// Ids of requests sent and not yet answered: only answers to these are kept.
    expected: Mutex<std::collections::HashSet<String>>,
    /// Answers that arrived with an id nobody asked for (dropped, counted).
    unsolicited: std::sync::atomic::AtomicUsize,
    responses: Mutex<HashMap<String, String>>,
    /// Why the transport stopped reading the server (an endless line), for error messages.
    fatal: Mutex<Option<String>>,
    junk: Mutex<Vec<String>>,
    undecodable: Mutex<Vec<String>>,
}

/// The JSON text of the top-level `"id"` of a JSON object, and whether it has a top-level
/// `"method"`, found by scanning bytes without recursion: works on messages nested too deeply
/// for serde_json (whose recursion limit is 128), so even those reach the right request.
pub fn scan_envelope(text: &str) -> (Option<String>, bool) {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    let mut id = None;
    let mut has_method = false;
    let mut expect_key = false;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                let key = &text[start..(i + 1).min(text.len())];
                if depth == 1 && expect_key {
                    // A top-level key: look at what follows the colon.
                    let mut j = i + 1;
                    while j < b.len() && (b[j] as char).is_ascii_whitespace() {
                        j += 1;
                    }
                    if j < b.len() && b[j] == b':' {
                        if key == "\"method\"" {
                            has_method = true;
                        } else if key == "\"id\"" {
                            let mut k = j + 1;
                            while k < b.len() && (b[k] as char).is_ascii_whitespace() {
                                k += 1;
                            }
                            let vstart = k;
                            if k < b.len() && b[k] == b'"' {
                                k += 1;
                                while k < b.len() && b[k] != b'"' {
                                    if b[k] == b'\\' {
                                        k += 1;
                                    }
                                    k += 1;
                                }
                                k += 1;
                            } else {
                                while k < b.len() && !matches!(b[k], b',' | b'}' | b' ' | b'\n' | b'\r' | b'\t') {
                                    k += 1;
                                }
                            }
                            id = Some(text[vstart..k.min(text.len())].to_string());
                        }
                    }
                }
                expect_key = false;
            }
            b'{' => {
                depth += 1;
                expect_key = depth == 1;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => expect_key = depth == 1,
            _ => {}
        }
        i += 1;
    }
    (id, has_method)
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
        let (id, is_response) = match serde_json::from_str::<Envelope>(trimmed) {
            Ok(e) => (e.id.map(|i| id_key(i.get())), e.method.is_none()),
            Err(e) if trimmed.starts_with('{') && e.to_string().contains("recursion limit") => {
                // Too deep for serde_json: find the id by scanning, so the request still ends.
                let (id, has_method) = scan_envelope(trimmed);
                (id.map(|i| id_key(&i)), !has_method)
            }
            Err(_) => {
                let mut junk = self.junk.lock().unwrap();
                if junk.len() < 16 {
                    junk.push(excerpt(trimmed));
                }
                return Forward::Drop;
            }
        };
        if let (Some(id), true) = (&id, is_response) {
            // An answer nobody asked for (or a second answer to one request) is dropped, not kept
            // until the run ends: a server could send them without end.
            if !self.expected.lock().unwrap().remove(id) {
                self.unsolicited.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return Forward::Drop;
            }
            self.responses.lock().unwrap().insert(id.clone(), trimmed.to_string());
        }
        match serde_json::from_str::<ServerJsonRpcMessage>(trimmed) {
            Ok(_) => Forward::Same,
            Err(err) => {
                self.undecodable.lock().unwrap().push(err.to_string());
                match (id, is_response) {
                    (Some(id), true) => Forward::Replace(format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"mcp-pin: rmcp could not decode this response; mcp-pin reads it raw"}}}}"#
                    )),
                    // A request or notification rmcp cannot type: rmcp would fail on it too.
                    _ => Forward::Drop,
                }
            }
        }
    }

    /// Note that a request with `id` (its JSON text) is being sent: its answer will be kept.
    pub fn expect(&self, id: &str) {
        self.expected.lock().unwrap().insert(id_key(id));
    }

    /// The transport gave up on the server's output, for this reason.
    pub fn fail(&self, why: String) {
        self.fatal.lock().unwrap().get_or_insert(why);
    }

    /// Why the transport gave up, if it did.
    pub fn fatal(&self) -> Option<String> {
        self.fatal.lock().unwrap().clone()
    }

    /// How many answers came with an id no request had.
    pub fn unsolicited(&self) -> usize {
        self.unsolicited.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Take the raw text of the response to request `id` (JSON text of the id).
    pub fn take(&self, id: &str) -> Option<String> {
        self.responses.lock().unwrap().remove(&id_key(id))
    }

    /// The handshake's `result` (`initialize` or `server/discover`) exactly as sent: the latest
    /// captured response whose result declares `capabilities`. Taken out of the capture.
    pub fn take_handshake(&self) -> Option<serde_json::Value> {
        let mut responses = self.responses.lock().unwrap();
        let mut best: Option<(Option<i128>, String, serde_json::Value)> = None;
        for (id, text) in responses.iter() {
            let Ok(mut v) = serde_json::from_str::<serde_json::Value>(text) else {
                continue;
            };
            let Some(result) = v.get_mut("result").map(serde_json::Value::take) else {
                continue;
            };
            if !result.get("capabilities").is_some_and(serde_json::Value::is_object) {
                continue;
            }
            let n = id.parse::<i128>().ok();
            if best.as_ref().is_none_or(|(bn, _, _)| n > *bn) {
                best = Some((n, id.clone(), result));
            }
        }
        let (_, id, result) = best?;
        responses.remove(&id);
        Some(result)
    }

    /// Lines the server printed on stdout that were not JSON (first few, truncated).
    pub fn junk(&self) -> Vec<String> {
        self.junk.lock().unwrap().clone()
    }
}

/// A short, single-line excerpt of untrusted text for an error message: masked, then cut
/// ([`crate::secrets::excerpt`]).
pub fn excerpt(s: &str) -> String {
    crate::secrets::excerpt(s, EXCERPT)
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
        c.expect("1");
        c.expect("\"a\"");
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
    fn responses_nested_too_deep_for_serde_still_reach_their_request() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","result":{{"tools":[{{"name":"x","inputSchema":{}{}}}]}},"id":7}}"#,
            "{\"a\":".repeat(3000),
            "1".to_string() + &"}".repeat(3000)
        );
        assert_eq!(scan_envelope(&deep), (Some("7".to_string()), false));
        let c = Capture::default();
        c.expect("7");
        match c.inspect(&deep) {
            Forward::Replace(s) => assert!(s.contains(r#""id":7"#)),
            _ => panic!("a deep response must be answered with a substitute"),
        }
        assert!(c.take("7").is_some());
        assert_eq!(
            scan_envelope(r#"{"method":"x","params":{"id":3},"id":"q\"1"}"#),
            (Some(r#""q\"1""#.to_string()), true)
        );
    }

    #[test]
    fn unsolicited_and_repeated_answers_are_dropped_not_kept() {
        let c = Capture::default();
        c.expect("1");
        for i in 0..1000 {
            let r = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, 100 + i);
            assert!(matches!(c.inspect(&r), Forward::Drop));
        }
        assert!(!matches!(c.inspect(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Forward::Drop));
        assert!(matches!(c.inspect(r#"{"jsonrpc":"2.0","id":1,"result":{"again":1}}"#), Forward::Drop));
        assert_eq!(c.unsolicited(), 1001);
        assert_eq!(c.responses.lock().unwrap().len(), 1);
    }

    #[test]
    fn junk_lines_are_dropped_and_remembered() {
        let c = Capture::default();
        assert!(matches!(c.inspect("Server starting on stdio..."), Forward::Drop));
        assert_eq!(c.junk(), vec!["Server starting on stdio...".to_string()]);
    }
}
