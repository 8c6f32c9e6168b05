//! Raw passthrough.
//!
//! rmcp does the protocol (handshake, framing, dispatch, version negotiation), but its typed
//! `Tool` and content blocks would drop unknown fields, reorder keys and reject unknown enum
//! values. So the handlers return a typed placeholder result whose `_meta` carries a token;
//! the real result text is parked in [`RawStore`] under that token. Every message rmcp puts
//! on the wire passes through [`RawStore::rewrite`] (the stdio writer, the HTTP JSON body,
//! each SSE event), which swaps the placeholder for the parked text, byte for byte.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

use serde::Deserialize;
use serde_json::value::RawValue;

/// `_meta` key of the placeholder token.
pub const TOKEN_KEY: &str = "dev.mcp-pin.fixture/raw";

#[derive(Debug, Clone)]
pub enum Parked {
    /// Fields of a `tools/list` result without braces (`"tools":[...],"nextCursor":".."`);
    /// other fields rmcp put on the result (resultType, ttlMs, cacheScope for 2026-07-28
    /// peers) are kept after them.
    ListFields(String),
    /// A whole result object, sent verbatim.
    Whole(String),
    /// Fields of a handshake result (`capabilities`, `serverInfo`) replaced by raw text: rmcp's
    /// typed `ServerCapabilities` cannot carry a capability it does not know. The token rides in
    /// `capabilities.experimental`, which is always replaced.
    Handshake(BTreeMap<String, String>),
}

/// Parked results are kept (not taken) so that a message rmcp replays, e.g. an SSE event
/// resent after a reconnect, is rewritten again; the oldest go once the store is too big.
const MAX_PARKED: usize = 512;
const MAX_PARKED_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug, Default)]
struct Parking {
    map: HashMap<String, Arc<Parked>>,
    order: VecDeque<String>,
    bytes: usize,
}

#[derive(Debug, Default)]
pub struct RawStore {
    next: AtomicU64,
    parked: Mutex<Parking>,
}

fn parked_len(p: &Parked) -> usize {
    match p {
        Parked::ListFields(s) | Parked::Whole(s) => s.len(),
        Parked::Handshake(m) => m.values().map(String::len).sum(),
    }
}

impl RawStore {
    pub fn park(&self, p: Parked) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let token = format!("raw-{}-{n}", std::process::id());
        let mut parking = self.parked.lock().unwrap();
        parking.bytes += parked_len(&p);
        parking.map.insert(token.clone(), Arc::new(p));
        parking.order.push_back(token.clone());
        while parking.order.len() > 1 && (parking.order.len() > MAX_PARKED || parking.bytes > MAX_PARKED_BYTES) {
            if let Some(old) = parking.order.pop_front() {
                if let Some(p) = parking.map.remove(&old) {
                    parking.bytes -= parked_len(&p);
                }
            }
        }
        token
    }

    fn get(&self, token: &str) -> Option<Arc<Parked>> {
        self.parked.lock().unwrap().map.get(token).cloned()
    }

    /// Rewrite one JSON-RPC message (text without the trailing newline). `None`: leave it be.
    pub fn rewrite(&self, msg: &str) -> Option<String> {
        if !msg.contains(TOKEN_KEY) {
            return None;
        }
        #[derive(Deserialize)]
        struct Probe<'a> {
            #[serde(borrow)]
            id: Option<&'a RawValue>,
            #[serde(borrow)]
            result: Option<BTreeMap<String, &'a RawValue>>,
        }
        let probe: Probe<'_> = serde_json::from_str(msg).ok()?;
        let id = probe.id?;
        let result = probe.result?;
        let (meta, token) = match token_in(result.get("_meta").copied()) {
            Some((m, t)) => (m, t),
            // capabilities.experimental[TOKEN_KEY][TOKEN_KEY] (a handshake)
            None => {
                let caps: BTreeMap<String, &RawValue> = serde_json::from_str(result.get("capabilities")?.get()).ok()?;
                let exp: BTreeMap<String, &RawValue> = serde_json::from_str(caps.get("experimental")?.get()).ok()?;
                (BTreeMap::new(), token_in(exp.get(TOKEN_KEY).copied())?.1)
            }
        };
        let parked = self.get(&token)?;
        let new_result = match &*parked {
            Parked::Whole(text) => text.clone(),
            Parked::Handshake(fields) => {
                let mut out = String::from("{");
                let mut first = true;
                let mut put = |k: &str, v: &str| {
                    if !std::mem::take(&mut first) {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).expect("string"));
                    out.push(':');
                    out.push_str(v);
                };
                for (k, v) in &result {
                    put(k, fields.get(k).map_or(v.get(), String::as_str));
                }
                out.push('}');
                out
            }
            Parked::ListFields(fields) => {
                let mut out = String::with_capacity(fields.len() + 128);
                out.push('{');
                out.push_str(fields);
                for (k, v) in &result {
                    match k.as_str() {
                        "tools" | "nextCursor" => {}
                        "_meta" => {
                            let rest: Vec<_> = meta.iter().filter(|(k, _)| *k != TOKEN_KEY).collect();
                            if !rest.is_empty() {
                                out.push_str(",\"_meta\":{");
                                for (i, (mk, mv)) in rest.iter().enumerate() {
                                    if i > 0 {
                                        out.push(',');
                                    }
                                    out.push_str(&serde_json::to_string(mk).expect("string"));
                                    out.push(':');
                                    out.push_str(mv.get());
                                }
                                out.push('}');
                            }
                        }
                        _ => {
                            out.push(',');
                            out.push_str(&serde_json::to_string(k).expect("string"));
                            out.push(':');
                            out.push_str(v.get());
                        }
                    }
                }
                out.push('}');
                out
            }
        };
        Some(format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}}", id.get(), new_result))
    }
}

/// The object `v` and the token under its `TOKEN_KEY`.
fn token_in(v: Option<&RawValue>) -> Option<(BTreeMap<String, &RawValue>, String)> {
    let m: BTreeMap<String, &RawValue> = serde_json::from_str(v?.get()).ok()?;
    let t: String = serde_json::from_str(m.get(TOKEN_KEY)?.get()).ok()?;
    Some((m, t))
}

/// Remove insignificant whitespace from JSON text, leaving everything else (key order,
/// number spelling, string escapes) untouched. Keeps each message on one line for stdio.
pub fn minify(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else {
            match c {
                ' ' | '\t' | '\n' | '\r' => {}
                '"' => {
                    in_string = true;
                    out.push(c);
                }
                _ => out.push(c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minify_keeps_strings_and_numbers() {
        assert_eq!(minify("{ \"a b\" : [1e3, 1.50 ,\n \"x\\\" y\" ] }"), "{\"a b\":[1e3,1.50,\"x\\\" y\"]}");
    }

    #[test]
    fn rewrite_handshake_fields() {
        let store = RawStore::default();
        let fields = BTreeMap::from([("capabilities".to_string(), r#"{"tools":{},"tasks":{"x":1}}"#.to_string())]);
        let tok = store.park(Parked::Handshake(fields));
        let msg = format!(
            r#"{{"jsonrpc":"2.0","id":0,"result":{{"capabilities":{{"experimental":{{"{TOKEN_KEY}":{{"{TOKEN_KEY}":"{tok}"}}}},"tools":{{}}}},"serverInfo":{{"name":"f"}}}}}}"#
        );
        assert_eq!(
            store.rewrite(&msg).unwrap(),
            r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"tools":{},"tasks":{"x":1}},"serverInfo":{"name":"f"}}}"#
        );
    }

    #[test]
    fn rewrite_list() {
        let store = RawStore::default();
        let tok = store.park(Parked::ListFields("\"tools\":[{\"z\":1e3,\"a\":1}]".into()));
        let msg = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"_meta\":{{\"{TOKEN_KEY}\":\"{tok}\"}},\"tools\":[],\"ttlMs\":0}}}}"
        );
        assert_eq!(
            store.rewrite(&msg).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[{\"z\":1e3,\"a\":1}],\"ttlMs\":0}}"
        );
        // A replayed message is rewritten again.
        assert!(store.rewrite(&msg).is_some());
    }
}
