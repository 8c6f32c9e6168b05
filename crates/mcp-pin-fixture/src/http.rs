//! Streamable HTTP transport: rmcp's `StreamableHttpService` under axum at `/mcp`, with a
//! middleware that checks `--require-header` and applies the raw rewrite to JSON bodies and
//! to each SSE event.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use bytes::Bytes;
use futures::StreamExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::io::Write;

use crate::handler::Fixture;
use crate::raw::RawStore;

struct HttpState {
    store: Arc<RawStore>,
    required_header: Option<(String, String)>,
}

pub async fn run(
    fixture: Fixture,
    store: Arc<RawStore>,
    addr: SocketAddr,
    required_header: Option<(String, String)>,
    stateless: bool,
) -> i32 {
    let config =
        StreamableHttpServerConfig::default().with_legacy_session_mode(!stateless).with_json_response(stateless);
    let service =
        StreamableHttpService::new(move || Ok(fixture.clone()), Arc::new(LocalSessionManager::default()), config);
    let state = Arc::new(HttpState { store, required_header });
    let app =
        Router::new().route_service("/mcp", service).layer(middleware::from_fn_with_state(state, guard_and_rewrite));
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mcp-pin-fixture: cannot bind {addr}: {e}");
            return 1;
        }
    };
    let local = listener.local_addr().expect("local addr");
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on http://{local}/mcp");
        let _ = out.flush();
    }
    eprintln!("mcp-pin-fixture: serving Streamable HTTP on http://{local}/mcp");
    if let Err(e) = axum::serve(listener, app).await {
        eprintln!("mcp-pin-fixture: server error: {e}");
        return 1;
    }
    0
}

async fn guard_and_rewrite(State(state): State<Arc<HttpState>>, request: Request, next: Next) -> Response {
    if let Some((name, value)) = &state.required_header {
        let ok = request.headers().get_all(name.as_str()).iter().any(|v| v.as_bytes() == value.as_bytes());
        if !ok {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))],
                "Unauthorized: missing or wrong credentials\n",
            )
                .into_response();
        }
    }
    let response = next.run(request).await;
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
        .unwrap_or_default();
    match content_type.as_str() {
        "application/json" => {
            let (mut parts, body) = response.into_parts();
            let bytes = match axum::body::to_bytes(body, usize::MAX).await {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("mcp-pin-fixture: reading response body: {e}");
                    return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                }
            };
            let new = std::str::from_utf8(&bytes).ok().and_then(|text| state.store.rewrite(text.trim_end()));
            match new {
                Some(text) => {
                    parts.headers.remove(header::CONTENT_LENGTH);
                    Response::from_parts(parts, Body::from(text))
                }
                None => Response::from_parts(parts, Body::from(bytes)),
            }
        }
        "text/event-stream" => {
            let (parts, body) = response.into_parts();
            let store = state.store.clone();
            // State: inner body, unparsed bytes, how far they were searched, done.
            let stream = futures::stream::unfold(
                (body.into_data_stream(), Vec::<u8>::new(), 0usize, store, false),
                |(mut inner, mut buf, mut scanned, store, done)| async move {
                    if done {
                        return None;
                    }
                    loop {
                        if let Some(pos) = find_event_end(&buf, scanned) {
                            let event: Vec<u8> = buf.drain(..pos).collect();
                            let out = rewrite_event(&store, &event);
                            return Some((Ok::<Bytes, axum::Error>(out), (inner, buf, 0, store, false)));
                        }
                        scanned = buf.len().saturating_sub(1);
                        match inner.next().await {
                            Some(Ok(chunk)) => buf.extend_from_slice(&chunk),
                            Some(Err(e)) => return Some((Err(e), (inner, buf, 0, store, true))),
                            None => {
                                if buf.is_empty() {
                                    return None;
                                }
                                let rest = Bytes::from(std::mem::take(&mut buf));
                                return Some((Ok(rest), (inner, buf, 0, store, true)));
                            }
                        }
                    }
                },
            );
            Response::from_parts(parts, Body::from_stream(stream))
        }
        _ => response,
    }
}

/// End (exclusive, including the blank line) of the first complete SSE event in `buf`.
/// `from`: bytes before it are known not to hold the end.
fn find_event_end(buf: &[u8], from: usize) -> Option<usize> {
    let from = from.min(buf.len());
    buf[from..].windows(2).position(|w| w == b"\n\n").map(|p| from + p + 2)
}

/// Rewrite the `data:` of one SSE event (one data line per event, as rmcp writes them).
fn rewrite_event(store: &RawStore, event: &[u8]) -> Bytes {
    let Ok(text) = std::str::from_utf8(event) else {
        return Bytes::copy_from_slice(event);
    };
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if let Some(data) = body.strip_prefix("data:") {
            let data = data.strip_prefix(' ').unwrap_or(data);
            if let Some(new) = store.rewrite(data) {
                out.push_str("data: ");
                out.push_str(&new);
                out.push('\n');
                changed = true;
                continue;
            }
        }
        out.push_str(line);
    }
    if changed {
        Bytes::from(out)
    } else {
        Bytes::copy_from_slice(event)
    }
}
