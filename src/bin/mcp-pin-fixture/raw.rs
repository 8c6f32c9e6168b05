//! Raw passthrough.
//!
//! rmcp does the protocol (handshake, framing, dispatch, version negotiation), but its typed
//! `Tool` and content blocks would drop unknown fields, reorder keys and reject unknown enum
//! values. So the handlers return a typed placeholder result whose `_meta` carries a token;
//! the real result text is parked in [`RawStore`] under that token. Every message rmcp puts
//! on the wire passes through [`RawStore::rewrite`] (the stdio writer, the HTTP JSON body,
//! each SSE event), which swaps the placeholder for the parked text, byte for byte.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

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
        while parking.order.len() > 1
            && (parking.order.len() > MAX_PARKED || parking.bytes > MAX_PARKED_BYTES)
        {
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
        let meta: BTreeMap<String, &RawValue> =
            serde_json::from_str(result.get("_meta")?.get()).ok()?;
        let token: String = serde_json::from_str(meta.get(TOKEN_KEY)?.get()).ok()?;
        let parked = self.get(&token)?;
        let new_result = match &*parked {
            Parked::Whole(text) => text.clone(),
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
        Some(format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}}",
            id.get(),
            new_result
        ))
    }
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
        assert_eq!(
            minify("{ \"a b\" : [1e3, 1.50 ,\n \"x\\\" y\" ] }"),
            "{\"a b\":[1e3,1.50,\"x\\\" y\"]}"
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
