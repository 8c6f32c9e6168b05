//! The proxy's own requests to the server (a listing's pages, its subscription to list
//! changes): ids no client uses, each answer handed to the request that waits for it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;

use super::upstream::{self, Outgoing, Text};

/// The proxy's own requests to the server: ids no client uses (a per-run nonce), each answer
/// handed to the request that waits for it.
pub struct Requester {
    pub(super) up: upstream::Sender,
    pub(super) own: Mutex<HashMap<String, oneshot::Sender<Text>>>,
    nonce: String,
    counter: AtomicU64,
    /// A 2026-07-28 client's protocol `_meta` (revision, capabilities, client info), copied onto
    /// the proxy's own requests: a stateless server needs it on every request.
    pub(super) meta: Mutex<Option<String>>,
    /// The revision in use, for HTTP's `MCP-Protocol-Version`.
    pub(super) version: Mutex<Option<String>>,
}

impl Requester {
    pub(super) fn new(up: upstream::Sender) -> Requester {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let nonce = format!("{:x}{:x}", std::process::id(), t.subsec_nanos() ^ (t.as_secs() as u32));
        Requester {
            up,
            own: Mutex::new(HashMap::new()),
            nonce,
            counter: AtomicU64::new(1),
            meta: Mutex::new(None),
            version: Mutex::new(None),
        }
    }

    fn next_id(&self) -> String {
        format!("\"mcp-pin-proxy-{}-{}\"", self.nonce, self.counter.fetch_add(1, Ordering::Relaxed))
    }

    /// `params` (a JSON object's text) with the client's protocol `_meta`, when there is one.
    fn with_meta(&self, params: &str) -> String {
        let meta = self.meta.lock().unwrap().clone();
        match meta {
            Some(m) if params.trim() == "{}" => format!("{{\"_meta\":{m}}}"),
            Some(m) => format!("{{\"_meta\":{m},{}", &params.trim()[1..]),
            None => params.to_string(),
        }
    }

    pub(super) fn outgoing(&self, id: Option<String>, method: &str, text: Text, params: Option<&str>) -> Outgoing {
        let version = self.version.lock().unwrap().clone();
        let headers = if self.up.http && version.as_deref().is_some_and(|v| v >= upstream::http::STATELESS) {
            let params: Option<Value> = params.and_then(|p| serde_json::from_str(p).ok());
            upstream::http::mirror_headers(method, params.as_ref(), None)
        } else {
            vec![]
        };
        Outgoing { text, id, version, headers }
    }

    /// Send a request of the proxy's own and wait for its answer (the whole response's text),
    /// at most `timeout`; a request that times out is cancelled on the server.
    pub async fn request(&self, method: &str, params: &str, timeout: Duration) -> Result<Text, String> {
        let id = self.next_id();
        let params = self.with_meta(params);
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
        let (tx, rx) = oneshot::channel();
        self.own.lock().unwrap().insert(id.clone(), tx);
        if !self.up.send(self.outgoing(Some(id.clone()), method, Text::new(text), Some(&params))).await {
            self.own.lock().unwrap().remove(&id);
            return Err("the connection to the server is closed".into());
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_)) => Err("the connection to the server closed before it answered".into()),
            Err(_) => {
                self.own.lock().unwrap().remove(&id);
                let cancel = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"timeout"}}}}"#
                );
                self.up.send(self.outgoing(None, "notifications/cancelled", Text::new(cancel), None)).await;
                Err(format!("{method} got no answer within {}", crate::client::humanize(timeout)))
            }
        }
    }

    /// A `subscriptions/listen` request (2026-07-28) for tool list changes, and its id: the
    /// stream stays open for the session; its notifications carry the id.
    pub(super) fn subscription(&self) -> (String, Outgoing) {
        let id = self.next_id();
        let params = self.with_meta(r#"{"notifications":{"toolsListChanged":true}}"#);
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{params}}}"#);
        let out = self.outgoing(Some(id.clone()), "subscriptions/listen", Text::new(text), Some(&params));
        (id, out)
    }

    /// The own request waiting for the answer with id `id` (taken: an answer is had once).
    pub(super) fn waiter(&self, id: &str) -> Option<oneshot::Sender<Text>> {
        self.own.lock().unwrap().remove(id)
    }

    pub(super) fn is_own(&self, id: &str) -> bool {
        id.starts_with(&format!("\"mcp-pin-proxy-{}-", self.nonce))
    }
}
