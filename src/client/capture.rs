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
    /// Ids of requests sent and not yet answered (only answers to these are kept), each with
    /// whether it is a `tools/list` request.
    expected: Mutex<HashMap<String, bool>>,
    /// What the server may send for its surface, counted while it is read.
    budget: Budget,
    /// The identity the session presents: stamped on its `initialize` request as it is sent.
    presented: Option<super::identity::Presented>,
    /// Answers that arrived with an id nobody asked for (dropped, counted).
    unsolicited: std::sync::atomic::AtomicUsize,
    responses: Mutex<HashMap<String, String>>,
    /// Why the transport stopped reading the server (an endless line), for error messages.
    fatal: Mutex<Option<String>>,
    junk: Mutex<Vec<String>>,
    undecodable: Mutex<Vec<String>>,
}

/// `max_listing_bytes`: every byte the server sends from the start of the session to the end of
/// its `tools/list` listing (the handshake and every page, whatever else comes in between) is
/// counted as it is read, by the transport, before it is parsed or kept.
#[derive(Default)]
struct Budget {
    /// The cap; 0 when there is none (a capture for a conformance or unit test).
    cap: usize,
    used: std::sync::atomic::AtomicUsize,
    /// Set when the listing ended: what comes after (tool call results) is not counted.
    closed: std::sync::atomic::AtomicBool,
    over: std::sync::atomic::AtomicBool,
}

/// The surface passed `max_listing_bytes` while it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    pub cap: usize,
}

/// A size in words: `32 MiB`, `500 KiB`, `12 bytes`.
pub fn size_words(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} bytes"),
    }
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

/// A listing may hold one JSON value per this many bytes of `max_listing_bytes`: what a value
/// costs once parsed (a few dozen bytes, whatever its text) is bounded with the text.
pub const BYTES_PER_VALUE: usize = 16;

/// How many JSON values `text` (a JSON document) holds, counted from its bytes without building
/// any: the document itself, every object member's value and every array element. What parsing it
/// would cost in memory is about this many values (each a few dozen bytes) plus its text.
pub fn count_values(text: &str) -> usize {
    let b = text.as_bytes();
    let mut arrays: Vec<bool> = Vec::new();
    let mut first_in_array = false;
    let mut count = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !c.is_ascii_whitespace() && c != b']' && first_in_array {
            count += 1;
            first_in_array = false;
        }
        match c {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'{' => arrays.push(false),
            b'[' => {
                arrays.push(true);
                first_in_array = true;
            }
            b']' => {
                first_in_array = false;
                arrays.pop();
            }
            b'}' => {
                arrays.pop();
            }
            b':' => count += 1,
            b',' if arrays.last() == Some(&true) => count += 1,
            _ => {}
        }
        i += 1;
    }
    count + usize::from(!text.trim().is_empty())
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
    /// A capture whose session may send at most `cap` bytes for its surface (`max_listing_bytes`).
    pub fn with_budget(cap: usize) -> Capture {
        Capture { budget: Budget { cap, ..Budget::default() }, ..Capture::default() }
    }

    /// The session presents this identity ([`Capture::presented`]).
    pub fn presenting(mut self, presented: super::identity::Presented) -> Capture {
        self.presented = Some(presented);
        self
    }

    /// The identity the session presents, for the transport to stamp its `initialize` request.
    pub fn presented(&self) -> Option<&super::identity::Presented> {
        self.presented.as_ref()
    }

    /// How many more bytes may be read before the surface passes its cap (`usize::MAX` when
    /// nothing is counted): a transport reads at most one more than this into memory.
    pub fn allowance(&self) -> usize {
        use std::sync::atomic::Ordering::Relaxed;
        let b = &self.budget;
        if b.cap == 0 || b.closed.load(Relaxed) {
            return usize::MAX;
        }
        b.cap.saturating_sub(b.used.load(Relaxed))
    }

    /// Count `n` bytes just read from the server. Past the cap, the transport must stop
    /// reading: the reason is kept for the error ([`Capture::over_budget`]).
    pub fn charge(&self, n: usize) -> Result<(), OverBudget> {
        use std::sync::atomic::Ordering::Relaxed;
        let b = &self.budget;
        if b.cap == 0 || b.closed.load(Relaxed) {
            return Ok(());
        }
        if b.used.fetch_add(n, Relaxed).saturating_add(n) > b.cap {
            b.over.store(true, Relaxed);
            self.fail(format!(
                "the server sent more than {} for its surface (`max_listing_bytes`); mcp-pin stopped reading",
                size_words(b.cap)
            ));
            return Err(OverBudget { cap: b.cap });
        }
        Ok(())
    }

    /// The listing is read: from now on nothing is counted against the surface's cap.
    pub fn end_listing(&self) {
        self.budget.closed.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the server sent more than the surface's cap.
    pub fn over_budget(&self) -> Option<OverBudget> {
        self.budget.over.load(std::sync::atomic::Ordering::Relaxed).then_some(OverBudget { cap: self.budget.cap })
    }

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
            let Some(listing) = self.expected.lock().unwrap().remove(id) else {
                self.unsolicited.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return Forward::Drop;
            };
            self.responses.lock().unwrap().insert(id.clone(), trimmed.to_string());
            if listing {
                return Forward::Replace(self.listing_for_rmcp(trimmed, id));
            }
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

    /// What rmcp is handed of a `tools/list` page. mcp-pin reads the page raw and rmcp's typed
    /// copy of it is not used, except to map call arguments to HTTP headers (`x-mcp-header`,
    /// 2026-07-28): rmcp gets the same id and only the tools that carry such an annotation, each
    /// as its name and `inputSchema`, so a page is not decoded (and held) twice more. A page
    /// with more values than the surface's cap allows gets none (mcp-pin refuses it anyway).
    fn listing_for_rmcp(&self, text: &str, id: &str) -> String {
        let page = |tools: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{tools}]}}}}"#);
        let cap = self.budget.cap;
        if !text.contains("x-mcp-header") || (cap > 0 && count_values(text) > cap / BYTES_PER_VALUE) {
            return page("");
        }
        #[derive(Deserialize)]
        struct Page<'a> {
            #[serde(borrow, default)]
            tools: Vec<&'a RawValue>,
        }
        #[derive(Deserialize)]
        struct Tool<'a> {
            #[serde(borrow)]
            name: &'a RawValue,
            #[serde(borrow, rename = "inputSchema")]
            input_schema: &'a RawValue,
        }
        let tools = serde_json::from_str::<RawResponse>(text)
            .ok()
            .and_then(|r| r.result)
            .and_then(|r| serde_json::from_str::<Page>(r.get()).ok())
            .map(|p| p.tools)
            .unwrap_or_default();
        let mapped: Vec<String> = tools
            .iter()
            .filter(|t| t.get().contains("x-mcp-header"))
            .filter_map(|t| serde_json::from_str::<Tool>(t.get()).ok())
            .map(|t| format!(r#"{{"name":{},"inputSchema":{}}}"#, t.name.get(), t.input_schema.get()))
            .collect();
        page(&mapped.join(","))
    }

    /// Note that a request with `id` (its JSON text) and `method` is being sent: its answer will
    /// be kept.
    pub fn expect(&self, id: &str, method: &str) {
        self.expected.lock().unwrap().insert(id_key(id), method == "tools/list");
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
        c.expect("1", "tools/call");
        c.expect("\"a\"", "tools/call");
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
        c.expect("7", "tools/call");
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
        c.expect("1", "ping");
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
    fn values_are_counted_without_parsing() {
        for (text, n) in [
            ("1", 1),
            ("[]", 1),
            ("{}", 1),
            ("[0,0,0]", 4),
            (r#"{"a":1,"b":[true,{"c":"x,y:[z]"}],"d":[]}"#, 7),
            (r#" [ [ ] , [1] , "\"]" ] "#, 5),
        ] {
            let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
            fn values(v: &serde_json::Value) -> usize {
                1 + match v {
                    serde_json::Value::Array(a) => a.iter().map(values).sum(),
                    serde_json::Value::Object(m) => m.values().map(values).sum(),
                    _ => 0,
                }
            }
            assert_eq!((count_values(text), values(&parsed)), (n, n), "{text}");
        }
    }

    #[test]
    fn a_listing_page_is_kept_raw_and_rmcp_gets_an_empty_one() {
        let c = Capture::default();
        c.expect("4", "tools/list");
        let page = r#"{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}"#;
        match c.inspect(page) {
            Forward::Replace(s) => assert_eq!(s, r#"{"jsonrpc":"2.0","id":4,"result":{"tools":[]}}"#),
            _ => panic!("rmcp must not decode the page"),
        }
        assert_eq!(c.take("4").as_deref(), Some(page));
        // rmcp maps call arguments to headers from the tools that say so: those reach it.
        c.expect("5", "tools/list");
        let mapped = r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"a","description":"A.","inputSchema":{"type":"object"}},{"name":"b","description":"B.","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]}}"#;
        match c.inspect(mapped) {
            Forward::Replace(s) => assert_eq!(
                s,
                r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"b","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}]}}"#
            ),
            _ => panic!("rmcp gets the mapped tools only"),
        }
    }

    #[test]
    fn the_surface_budget_counts_until_the_listing_ends() {
        let c = Capture::with_budget(100);
        assert_eq!(c.allowance(), 100);
        assert!(c.charge(60).is_ok());
        assert_eq!(c.allowance(), 40);
        assert_eq!(c.charge(41), Err(OverBudget { cap: 100 }));
        assert_eq!(c.over_budget(), Some(OverBudget { cap: 100 }));
        assert!(c.fatal().unwrap().contains("more than 100 bytes for its surface"));
        let c = Capture::with_budget(100);
        c.end_listing();
        assert_eq!(c.allowance(), usize::MAX);
        assert!(c.charge(1 << 30).is_ok() && c.over_budget().is_none());
        assert_eq!(size_words(32 << 20), "32 MiB");
        assert_eq!(size_words(1536), "1.5 KiB");
    }

    #[test]
    fn junk_lines_are_dropped_and_remembered() {
        let c = Capture::default();
        assert!(matches!(c.inspect("Server starting on stdio..."), Forward::Drop));
        assert_eq!(c.junk(), vec!["Server starting on stdio...".to_string()]);
    }
}
