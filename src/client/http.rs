//! Streamable HTTP through rmcp, with the raw bodies of `tools/list` and `tools/call` passing
//! through our code.
//!
//! rmcp's own reqwest client decodes JSON bodies into its types before we could see them, so
//! [`CapturingHttp`] implements rmcp's `StreamableHttpClient` itself for the requests whose
//! answers mcp-pin reads (discover, initialize, tools/list, tools/call) and for the GET stream;
//! every body it reads goes through the bounded reader ([`super::body`]). Notifications and
//! session deletion, whose answers carry nothing, go through rmcp's reqwest client.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::{BoxStream, StreamExt};
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};

use super::capture::{Capture, Forward};

/// Largest JSON body accepted (tens of MB of tools are fine).
pub const MAX_BODY: usize = 256 * 1024 * 1024;
pub const SESSION_HEADER: &str = "mcp-session-id";

#[derive(Clone)]
pub struct CapturingHttp {
    pub client: reqwest::Client,
    pub capture: Arc<Capture>,
    /// The names of the headers the config sets (its secrets travel in them).
    pub configured: Arc<Vec<HeaderName>>,
    /// Origins (`https://host:port`) a redirect may lead to; the configured headers never go there.
    pub redirect_origins: Arc<Vec<String>>,
    /// A DPoP-bound token (`oauth.dpop`): each request gets its own proof ([`Self::authorize`]).
    pub dpop: Option<Arc<super::oauth::dpop::Binding>>,
}

pub use super::body::error_chain;
use crate::config::origin;

/// Redirects followed in a row at most.
const MAX_REDIRECTS: usize = 10;

/// The redirect policy of every request: follow a redirect only within the origin the request
/// was sent to; any other redirect is handed back (as the 3xx answer) for [`CapturingHttp`] to
/// refuse or, when the config allows the origin, to follow without the configured headers.
pub fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same = attempt.previous().first().is_some_and(|first| origin(first) == origin(attempt.url()));
        if same && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// An SSE body read through [`super::body::bounded`] (counted against the surface's cap while it
/// is read), whose events are capped at `max` bytes: a `data:` line that never ends is an error
/// once it passes the cap instead of being buffered without limit.
pub fn capped_events(
    body: impl futures::Stream<Item = Result<bytes::Bytes, reqwest::Error>> + Send + 'static,
    max: usize,
    capture: Arc<Capture>,
) -> impl futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + 'static {
    let mut since_boundary = 0usize;
    let mut newline = false;
    let meter = super::body::Meter::new("the server's event stream", usize::MAX).counting(&capture);
    super::body::bounded(body, meter).map(move |chunk| {
        let chunk = chunk.map_err(std::io::Error::other)?;
        for &b in chunk.iter() {
            match b {
                b'\n' if newline => since_boundary = 0,
                b'\n' => newline = true,
                b'\r' => {}
                _ => {
                    newline = false;
                    since_boundary += 1;
                }
            }
        }
        if since_boundary > max {
            let why = format!(
                "an SSE event from the server is larger than {} MiB and has not ended; mcp-pin stopped reading it",
                max >> 20
            );
            capture.fail(why.clone());
            return Err(std::io::Error::other(why));
        }
        Ok(chunk)
    })
}

/// Why a request got no answer at all, in a sentence a user acts on: read from the typed error
/// (reqwest's kind and the operating system's), never from its text. reqwest's own words ("error
/// sending request for url (...): client error (Connect): tcp connect error") are the whole chain
/// of wrappers; the cause is the last link, which is what is said when no kind is known (a
/// certificate the roots do not trust, a name that does not resolve).
pub fn unreachable(e: &reqwest::Error) -> String {
    use std::io::ErrorKind as K;
    let mut io: Option<&std::io::Error> = None;
    let mut last: Option<&(dyn std::error::Error + 'static)> = None;
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        io = io.or_else(|| s.downcast_ref::<std::io::Error>());
        last = Some(s);
        source = s.source();
    }
    let said = match io.map(std::io::Error::kind) {
        Some(K::ConnectionRefused) => {
            Some("the connection was refused: nothing listens there. Is the server running, and is `url` right?")
        }
        Some(K::ConnectionReset | K::ConnectionAborted) => Some("the connection was closed before any answer"),
        Some(K::TimedOut) => Some("connecting timed out: is the host up, and is `url` right?"),
        Some(K::HostUnreachable | K::NetworkUnreachable | K::NetworkDown) => {
            Some("no route to that host from here (a network that is down, or a host on another network)")
        }
        _ if e.is_timeout() => Some("no answer within the server's `timeout`"),
        _ => None,
    };
    match (said, last) {
        (Some(s), _) => s.to_string(),
        (None, Some(cause)) => cause.to_string(),
        (None, None) => e.to_string(),
    }
}

/// An answer's media type, lower case (`""` when none).
pub fn content_type(headers: &reqwest::header::HeaderMap) -> String {
    headers.get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase()
}

fn wants_raw(message: &ClientJsonRpcMessage) -> bool {
    matches!(
        message,
        JsonRpcMessage::Request(r) if matches!(
            r.request,
            ClientRequest::ListToolsRequest(_)
                | ClientRequest::CallToolRequest(_)
                | ClientRequest::InitializeRequest(_)
                | ClientRequest::DiscoverRequest(_)
        )
    )
}

type Res<T> = Result<T, StreamableHttpError<reqwest::Error>>;

impl CapturingHttp {
    /// The authorization of one request to the MCP server, the one place it is made: rmcp's
    /// bearer token as it is, or with DPoP `Authorization: DPoP <token>` and a fresh proof for
    /// `method uri` among the headers (and no bearer token).
    pub fn authorize(
        &self,
        method: &str,
        uri: &str,
        auth_header: Option<String>,
        mut headers: HashMap<HeaderName, HeaderValue>,
    ) -> Res<(Option<String>, HashMap<HeaderName, HeaderValue>)> {
        let Some(binding) = &self.dpop else { return Ok((auth_header, headers)) };
        let pair = binding.headers(method, uri).map_err(|e| StreamableHttpError::UnexpectedServerResponse(e.into()))?;
        headers.extend(pair);
        Ok((None, headers))
    }

    /// An event stream from the server (a POST's answer or the GET stream): read through the
    /// bounded reader, each event at most `max` bytes, each message through the capture.
    fn events(&self, resp: reqwest::Response, max: usize) -> BoxStream<'static, Result<Sse, SseError>> {
        let this = self.clone();
        SseStream::from_bytes_stream(capped_events(resp.bytes_stream(), max, self.capture.clone()))
            .filter_map(move |event: Result<Sse, SseError>| {
                let this = this.clone();
                async move {
                    match event {
                        Ok(mut sse) => {
                            if let Some(data) = sse.data.take() {
                                match this.capture.inspect(&data) {
                                    Forward::Same => sse.data = Some(data),
                                    Forward::Replace(s) => sse.data = Some(s),
                                    Forward::Drop => sse.data = None,
                                }
                            }
                            Some(Ok(sse))
                        }
                        Err(e) => Some(Err(e)),
                    }
                }
            })
            .boxed()
    }

    /// Decode a captured body for rmcp, or a substitute when rmcp cannot type it.
    fn for_rmcp(&self, text: &str) -> Res<Option<ServerJsonRpcMessage>> {
        let forwarded = match self.capture.inspect(text) {
            Forward::Same => text.to_string(),
            Forward::Replace(s) => s,
            Forward::Drop => return Ok(None),
        };
        serde_json::from_str(&forwarded).map(Some).map_err(|e| {
            StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!("response is not JSON-RPC: {e}")))
        })
    }

    async fn post_raw(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Res<StreamableHttpPostResponse> {
        let mut body = serde_json::to_value(&message).map_err(|e| {
            StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!("cannot encode a request: {e}")))
        })?;
        // The identity the session presents goes on the wire exactly as its client sends it.
        if let Some(p) = self.capture.presented() {
            p.stamp(&mut body);
        }
        // A tool call carries its arguments, not rmcp's progress token.
        super::without_progress_token(&mut body);
        if let JsonRpcMessage::Request(r) = &message {
            let method = body.get("method").and_then(serde_json::Value::as_str).unwrap_or("");
            self.capture.expect(&serde_json::to_string(&r.id).unwrap_or_default(), method);
        }
        let body = serde_json::to_vec(&body).map_err(|e| {
            StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!("cannot encode a request: {e}")))
        })?;
        let resp =
            self.send_post(&uri, bytes::Bytes::from(body), session_id.as_deref(), auth_header, &custom_headers).await?;
        self.read_post_response(resp, session_id.is_some()).await
    }

    /// POST one serialised JSON-RPC message (`body`) to `uri`: the one place a POST to the
    /// server is made, for `check`'s client and the proxy's relay alike. Accepts JSON or an
    /// event stream; the bearer token (or a DPoP proof), the configured headers and the session
    /// go to the server's origin only; a redirect within that origin is followed, one to another
    /// origin only when `allow_redirects` names it, and then without any of them.
    pub async fn send_post(
        &self,
        uri: &str,
        body: bytes::Bytes,
        session_id: Option<&str>,
        auth_header: Option<String>,
        custom_headers: &HashMap<HeaderName, HeaderValue>,
    ) -> Res<reqwest::Response> {
        let mut target: reqwest::Url = uri.parse().map_err(|e| {
            StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!("invalid server URL: {e}")))
        })?;
        let home = origin(&target);
        let mut hops = 0;
        let mut nonce_retried = false;
        let resp = loop {
            let foreign = origin(&target) != home;
            let mut req = self
                .client
                .post(target.clone())
                .header(reqwest::header::ACCEPT, "application/json, text/event-stream")
                .header(reqwest::header::CONTENT_TYPE, "application/json");
            if !foreign {
                let (bearer, auth) = self.authorize("POST", target.as_str(), auth_header.clone(), HashMap::new())?;
                if let Some(token) = bearer {
                    req = req.bearer_auth(token);
                }
                for (name, value) in auth {
                    req = req.header(name, value);
                }
            }
            for (name, value) in custom_headers {
                if !(foreign && self.configured.contains(name)) {
                    req = req.header(name, value);
                }
            }
            if let Some(s) = session_id.filter(|_| !foreign) {
                req = req.header(SESSION_HEADER, s);
            }
            let resp = req.body(body.clone()).send().await.map_err(|e| {
                StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                    "cannot reach {}: {}",
                    origin(&target),
                    unreachable(&e)
                )))
            })?;
            if let Some(binding) = &self.dpop {
                // A use_dpop_nonce challenge gets the request once more with the server's
                // nonce (RFC 9449 §9); a fresh nonce on any answer is kept for the next ones.
                let challenge = super::oauth::dpop::nonce_challenge(resp.status().as_u16(), resp.headers(), None);
                if let Some(n) = challenge {
                    binding.set_nonce(n);
                    if !nonce_retried && !foreign {
                        nonce_retried = true;
                        continue;
                    }
                } else if let Some(n) = resp.headers().get(super::oauth::dpop::DPOP_NONCE).and_then(|v| v.to_str().ok())
                {
                    binding.set_nonce(n.to_string());
                }
            }
            if !resp.status().is_redirection() {
                break resp;
            }
            // Only a redirect to another origin reaches here (the policy follows the others).
            let location = resp.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
            let next = location.and_then(|l| resp.url().join(l).ok()).ok_or_else(|| {
                StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                    "HTTP {} redirect without a usable Location",
                    resp.status()
                )))
            })?;
            let to = origin(&next);
            hops += 1;
            if hops > MAX_REDIRECTS {
                return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                    "more than {MAX_REDIRECTS} redirects"
                ))));
            }
            if to != home && !self.redirect_origins.contains(&to) {
                return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                    "the server at {home} redirected (HTTP {}) to another origin, {to}; mcp-pin does not follow it, so the configured headers never leave {home}. If the server moved, set its `url` to the new address; to follow the redirect without the configured headers, add `allow_redirects = [\"{to}\"]` to the server's config",
                    resp.status().as_u16()
                ))));
            }
            target = next;
        };
        Ok(resp)
    }

    /// rmcp's view of a POST's answer: one JSON message, an event stream, or accepted.
    async fn read_post_response(&self, resp: reqwest::Response, had_session: bool) -> Res<StreamableHttpPostResponse> {
        let status = resp.status();
        let www =
            resp.headers().get(reqwest::header::WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()).map(str::to_string);
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(www.unwrap_or_default())));
        }
        if status == reqwest::StatusCode::FORBIDDEN {
            return Err(StreamableHttpError::InsufficientScope(InsufficientScopeError::new(
                www.unwrap_or_default(),
                None,
            )));
        }
        if status == reqwest::StatusCode::ACCEPTED || status == reqwest::StatusCode::NO_CONTENT {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == reqwest::StatusCode::NOT_FOUND && had_session {
            return Err(StreamableHttpError::SessionExpired);
        }
        let session = resp.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
        let content_type = content_type(resp.headers());
        if content_type.starts_with("text/event-stream") && status.is_success() {
            return Ok(StreamableHttpPostResponse::Sse(self.events(resp, MAX_BODY), session));
        }
        let meter = super::body::Meter::new("the server's response", MAX_BODY).counting(&self.capture);
        let body = super::body::read(resp, meter, None)
            .await
            .map_err(|e| StreamableHttpError::UnexpectedServerResponse(Cow::Owned(e.to_string())))?;
        let text = String::from_utf8_lossy(&body);
        if !status.is_success() {
            if let Ok(Some(msg)) = self.for_rmcp(&text) {
                if matches!(msg, JsonRpcMessage::Error(_)) {
                    return Ok(StreamableHttpPostResponse::Json(msg, session));
                }
            }
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                "HTTP {status}: {}",
                super::capture::excerpt(&text)
            ))));
        }
        if !content_type.starts_with("application/json") {
            return Err(StreamableHttpError::UnexpectedContentType(Some(content_type)));
        }
        match self.for_rmcp(&text)? {
            Some(msg) => Ok(StreamableHttpPostResponse::Json(msg, session)),
            None => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                "body is not JSON: {}",
                super::capture::excerpt(&text)
            )))),
        }
    }
}

impl StreamableHttpClient for CapturingHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Res<StreamableHttpPostResponse> {
        // rmcp's own client does the same: the limited call with the default limits.
        let limits = rmcp::transport::streamable_http_client::StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(uri, message, session_id, auth_header, custom_headers, limits).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: rmcp::transport::streamable_http_client::StreamableHttpResponseLimits,
    ) -> Res<StreamableHttpPostResponse> {
        if wants_raw(&message) {
            self.post_raw(uri, message, session_id, auth_header, custom_headers).await
        } else {
            let (auth_header, custom_headers) = self.authorize("POST", &uri, auth_header, custom_headers)?;
            // rmcp's own client enforces its event and body limits on what it reads itself.
            self.client
                .post_message_with_response_limits(uri, message, session_id, auth_header, custom_headers, limits)
                .await
        }
    }

    /// The server's GET stream, read like every other body: through the bounded reader and the
    /// capture (a response that arrives here still reaches its request raw).
    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Res<BoxStream<'static, Result<Sse, SseError>>> {
        let (auth_header, custom_headers) = self.authorize("GET", &uri, auth_header, custom_headers)?;
        let mut req =
            self.client.get(uri.as_ref()).header(reqwest::header::ACCEPT, "text/event-stream, application/json");
        if let Some(s) = &session_id {
            req = req.header(SESSION_HEADER, s.as_ref());
        }
        if let Some(id) = last_event_id {
            req = req.header("last-event-id", id);
        }
        if let Some(token) = auth_header {
            req = req.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            req = req.header(name, value);
        }
        let resp = req.send().await.map_err(StreamableHttpError::Client)?;
        let status = resp.status();
        let www =
            resp.headers().get(reqwest::header::WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()).map(str::to_string);
        match status {
            reqwest::StatusCode::METHOD_NOT_ALLOWED => return Err(StreamableHttpError::ServerDoesNotSupportSse),
            reqwest::StatusCode::UNAUTHORIZED => {
                return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(www.unwrap_or_default())))
            }
            reqwest::StatusCode::FORBIDDEN => {
                return Err(StreamableHttpError::InsufficientScope(InsufficientScopeError::new(
                    www.unwrap_or_default(),
                    None,
                )))
            }
            reqwest::StatusCode::NOT_FOUND if session_id.is_some() => return Err(StreamableHttpError::SessionExpired),
            s if !s.is_success() => {
                return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                    "the server's event stream answered HTTP {s}"
                ))))
            }
            _ => {}
        }
        let content_type = resp.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        if !content_type.is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream")) {
            return Err(StreamableHttpError::UnexpectedContentType(content_type.map(str::to_string)));
        }
        Ok(self.events(resp, max_sse_event_size.min(MAX_BODY)))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Res<()> {
        let (auth_header, custom_headers) = self.authorize("DELETE", &uri, auth_header, custom_headers)?;
        self.client.delete_session(uri, session_id, auth_header, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Res<BoxStream<'static, Result<Sse, SseError>>> {
        self.get_stream_with_max_sse_event_size(uri, session_id, last_event_id, auth_header, custom_headers, MAX_BODY)
            .await
    }
}
