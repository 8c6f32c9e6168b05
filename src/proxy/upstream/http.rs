//! A Streamable HTTP server for the relay: every message a POST made by
//! [`crate::client::http::CapturingHttp::send_post`] (the configured headers and the OAuth token
//! to the server's origin only, redirects as `check` follows them), each answer (a JSON body or
//! an event stream) passed on message by message as its text, and for a legacy session the GET
//! stream of the server's own messages.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use http::{HeaderName, HeaderValue};
use rmcp::transport::streamable_http_client::StreamableHttpClient;
use tokio::sync::mpsc;

use super::{Incoming, Outgoing};
use crate::client::http::{capped_events, CapturingHttp, MAX_BODY, SESSION_HEADER};
use crate::client::ClientError;
use crate::config::ServerConfig;

/// The revision from which servers are stateless and take the mirror headers (SEP-2243).
pub const STATELESS: &str = "2026-07-28";

struct Shared {
    http: CapturingHttp,
    url: Arc<str>,
    headers: HashMap<HeaderName, HeaderValue>,
    auth: Option<String>,
    session: Mutex<Option<String>>,
    /// Whether the GET stream of a legacy session was opened.
    listening: Mutex<bool>,
    into: mpsc::Sender<Incoming>,
}

pub struct Closer {
    shared: Arc<Shared>,
}

impl Closer {
    /// End a legacy session (DELETE), as a client leaving should.
    pub async fn close(self) {
        let session = self.shared.session.lock().unwrap().clone();
        if let Some(s) = session {
            let sh = &self.shared;
            let _ = tokio::time::timeout(
                std::time::Duration::from_secs(2),
                sh.http.delete_session(sh.url.clone(), Arc::from(s.as_str()), sh.auth.clone(), sh.headers.clone()),
            )
            .await;
        }
    }
}

pub async fn start(
    server: &ServerConfig,
    cfg: &crate::config::Http,
    mut out: mpsc::Receiver<Outgoing>,
    into: mpsc::Sender<Incoming>,
) -> Result<Closer, ClientError> {
    // The same client, headers, redirect rules and OAuth as `check` (one deadline for the grant).
    let presented = crate::client::identity::Presented::of(server);
    let deadline = tokio::time::Instant::now() + server.timeout;
    let setup = crate::client::HttpSetup::new(server, cfg, &presented, deadline).await?;
    let shared = Arc::new(Shared {
        http: setup.capturing(cfg, Arc::default()),
        url: Arc::from(cfg.url.as_str()),
        headers: setup.headers.clone(),
        auth: setup.auth_header(),
        session: Mutex::new(None),
        listening: Mutex::new(false),
        into,
    });
    let sh = shared.clone();
    tokio::spawn(async move {
        // One task per message: an answer that streams for minutes holds up no other message.
        while let Some(msg) = out.recv().await {
            tokio::spawn(post(sh.clone(), msg));
        }
    });
    Ok(Closer { shared })
}

async fn post(sh: Arc<Shared>, msg: Outgoing) {
    let mut headers = sh.headers.clone();
    let extra = msg.version.iter().map(|v| ("mcp-protocol-version".to_string(), v.clone())).chain(msg.headers);
    for (k, v) in extra {
        if let (Ok(k), Ok(v)) = (HeaderName::from_bytes(k.as_bytes()), HeaderValue::from_str(&v)) {
            headers.insert(k, v);
        }
    }
    let session = sh.session.lock().unwrap().clone();
    let had_session = session.is_some();
    let fail = |why: String| {
        let sh = sh.clone();
        let id = msg.id.clone();
        async move {
            match id {
                Some(id) => {
                    let _ = sh.into.send(Incoming::Failed { id, message: why }).await;
                }
                None => crate::tell!("mcp-pin proxy: a notification did not reach the server: {why}"),
            }
        }
    };
    let body = bytes::Bytes::from_owner(Owned(msg.text));
    let resp = match sh.http.send_post(&sh.url, body, session.as_deref(), sh.auth.clone(), &headers).await {
        Ok(r) => r,
        Err(e) => return fail(crate::client::plain_error(&e.to_string())).await,
    };
    let status = resp.status();
    if let Some(s) = resp.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
        let mut slot = sh.session.lock().unwrap();
        if slot.is_none() {
            *slot = Some(s.to_string());
        }
    }
    if status == reqwest::StatusCode::ACCEPTED || status == reqwest::StatusCode::NO_CONTENT {
        return;
    }
    if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
        let www = resp.headers().get(reqwest::header::WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()).unwrap_or("");
        return fail(format!(
            "the server answered HTTP {} ({}); set `headers` or `oauth` for this server in the config",
            status.as_u16(),
            crate::client::capture::excerpt(www)
        ))
        .await;
    }
    if status == reqwest::StatusCode::NOT_FOUND && had_session {
        return fail("the server ended the session (HTTP 404)".into()).await;
    }
    let content_type = crate::client::http::content_type(resp.headers());
    if content_type.starts_with("text/event-stream") && status.is_success() {
        listen_once(&sh);
        relay_events(&sh, resp.bytes_stream()).await;
        return;
    }
    let meter = crate::client::body::Meter::new("the server's answer", MAX_BODY);
    let body = match crate::client::body::read(resp, meter, None).await {
        Ok(b) => b,
        Err(e) => return fail(format!("reading the answer failed: {e}")).await,
    };
    let text = match String::from_utf8(body) {
        Ok(t) => t,
        Err(_) => return fail("the answer is not UTF-8".into()).await,
    };
    if !status.is_success() && !text.trim_start().starts_with('{') {
        return fail(format!("HTTP {status}: {}", crate::client::capture::excerpt(&text))).await;
    }
    if text.trim().is_empty() {
        return;
    }
    listen_once(&sh);
    let text = if text.trim().len() == text.len() { text } else { text.trim().to_string() };
    let _ = sh.into.send(Incoming::Message(Arc::new(text))).await;
}

/// Each event of a stream with data, as one message (an empty priming event is skipped).
async fn relay_events(
    sh: &Arc<Shared>,
    body: impl futures::Stream<Item = Result<bytes::Bytes, reqwest::Error>> + Send + 'static,
) {
    let mut events = Box::pin(sse_stream::SseStream::from_bytes_stream(capped_events(body, MAX_BODY, Arc::default())));
    while let Some(event) = events.next().await {
        match event {
            Ok(sse) => {
                if let Some(data) = sse.data.filter(|d| !d.trim().is_empty()) {
                    if sh.into.send(Incoming::Message(Arc::new(data))).await.is_err() {
                        return;
                    }
                }
            }
            Err(e) => {
                crate::tell!("mcp-pin proxy: an event stream from the server broke off: {e}");
                return;
            }
        }
    }
}

/// A legacy session's GET stream (the server's own requests and notifications), opened once
/// the session exists. A server without one (HTTP 405) is fine.
fn listen_once(sh: &Arc<Shared>) {
    let Some(session) = sh.session.lock().unwrap().clone() else { return };
    {
        let mut l = sh.listening.lock().unwrap();
        if *l {
            return;
        }
        *l = true;
    }
    let sh = sh.clone();
    tokio::spawn(async move {
        let stream = sh
            .http
            .get_stream(sh.url.clone(), Some(Arc::from(session.as_str())), None, sh.auth.clone(), sh.headers.clone())
            .await;
        let Ok(mut stream) = stream else { return };
        while let Some(Ok(sse)) = stream.next().await {
            if let Some(data) = sse.data.filter(|d| !d.trim().is_empty()) {
                if sh.into.send(Incoming::Message(Arc::new(data))).await.is_err() {
                    return;
                }
            }
        }
    });
}

/// A message's text as a request body, without a copy.
struct Owned(super::Text);

impl AsRef<[u8]> for Owned {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// The headers that mirror a 2026-07-28 request (SEP-2243): `Mcp-Method` always, `Mcp-Name` for
/// a call, a prompt or a resource, and `Mcp-Param-{Name}` for each argument whose schema in the
/// served tool (`def`) declares `x-mcp-header`. A value that is not plain visible ASCII is sent
/// Base64-wrapped (`=?base64?...?=`).
pub fn mirror_headers(
    method: &str,
    params: Option<&serde_json::Value>,
    def: Option<&serde_json::Value>,
) -> Vec<(String, String)> {
    use base64::Engine as _;
    let wrap = |v: &str| -> String {
        let sentinel = v.starts_with("=?base64?") && v.ends_with("?=");
        let edge = v.starts_with([' ', '\t']) || v.ends_with([' ', '\t']);
        let plain = v.chars().all(|c| (' '..='~').contains(&c)) && !edge && !sentinel;
        if plain || v.is_empty() {
            v.to_string()
        } else {
            format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(v))
        }
    };
    let mut out = vec![("mcp-method".to_string(), wrap(method))];
    let key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(name) = key.and_then(|k| params?.get(k)?.as_str().map(str::to_string)) {
        out.push(("mcp-name".to_string(), wrap(&name)));
    }
    if method == "tools/call" {
        let props = def.and_then(|d| d.pointer("/inputSchema/properties")).and_then(serde_json::Value::as_object);
        let args = params.and_then(|p| p.get("arguments")).and_then(serde_json::Value::as_object);
        if let (Some(props), Some(args)) = (props, args) {
            for (arg, schema) in props {
                let Some(header) = schema.get("x-mcp-header").and_then(serde_json::Value::as_str) else { continue };
                let value = match args.get(arg) {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) => v.to_string(),
                    _ => continue,
                };
                out.push((format!("mcp-param-{header}"), wrap(&value)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn mirror_headers_follow_sep_2243() {
        let def = json!({"inputSchema": {"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}});
        let params = json!({"name": "t", "arguments": {"region": "eü", "other": 1}});
        let h = super::mirror_headers("tools/call", Some(&params), Some(&def));
        assert_eq!(h[0], ("mcp-method".to_string(), "tools/call".to_string()));
        assert_eq!(h[1], ("mcp-name".to_string(), "t".to_string()));
        assert_eq!(h[2].0, "mcp-param-Region");
        assert!(h[2].1.starts_with("=?base64?"), "{:?}", h[2]);
        assert_eq!(super::mirror_headers("tools/list", None, None).len(), 1);
    }
}
