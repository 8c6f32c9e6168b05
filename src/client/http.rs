//! Streamable HTTP through rmcp, with the raw bodies of `tools/list` and `tools/call` passing
//! through our code.
//!
//! rmcp's own reqwest client decodes JSON bodies into its types before we could see them, so
//! [`CapturingHttp`] implements rmcp's `StreamableHttpClient` itself for the requests whose
//! answers mcp-pin pins (tools/list, tools/call) and delegates every other request (discover,
//! initialize, notifications, the GET stream, session deletion) to rmcp's reqwest client.

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
const MAX_BODY: usize = 256 * 1024 * 1024;
const SESSION_HEADER: &str = "mcp-session-id";

#[derive(Clone)]
pub struct CapturingHttp {
    pub client: reqwest::Client,
    pub capture: Arc<Capture>,
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
    /// Decode a captured body for rmcp, or a substitute when rmcp cannot type it.
    fn for_rmcp(&self, text: &str) -> Res<Option<ServerJsonRpcMessage>> {
        let forwarded = match self.capture.inspect(text) {
            Forward::Same => text.to_string(),
            Forward::Replace(s) => s,
            Forward::Drop => return Ok(None),
        };
        serde_json::from_str(&forwarded).map(Some).map_err(|e| {
            StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                "response is not JSON-RPC: {e}"
            )))
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
        let mut req = self
            .client
            .post(uri.as_ref())
            .header(reqwest::header::ACCEPT, "application/json, text/event-stream");
        if let Some(auth) = auth_header {
            req = req.bearer_auth(auth);
        }
        for (name, value) in custom_headers {
            req = req.header(name, value);
        }
        let had_session = session_id.is_some();
        if let Some(s) = session_id {
            req = req.header(SESSION_HEADER, s.as_ref());
        }
        let resp = req.json(&message).send().await.map_err(StreamableHttpError::Client)?;
        let status = resp.status();
        let www = resp
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                www.unwrap_or_default(),
            )));
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
        let session = resp
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if content_type.starts_with("text/event-stream") && status.is_success() {
            let capture = self.clone();
            let stream = SseStream::from_bytes_stream(resp.bytes_stream())
                .filter_map(move |event: Result<Sse, SseError>| {
                    let this = capture.clone();
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
                });
            let boxed: BoxStream<'static, Result<Sse, SseError>> = stream.boxed();
            return Ok(StreamableHttpPostResponse::Sse(boxed, session));
        }
        let body = read_limited(resp).await?;
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

async fn read_limited(resp: reqwest::Response) -> Res<Vec<u8>> {
    let mut out = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(StreamableHttpError::Client)?;
        if out.len() + chunk.len() > MAX_BODY {
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Borrowed(
                "response body larger than 256 MiB",
            )));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
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
        if wants_raw(&message) {
            self.post_raw(uri, message, session_id, auth_header, custom_headers).await
        } else {
            self.client
                .post_message(uri, message, session_id, auth_header, custom_headers)
                .await
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Res<()> {
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
        self.client
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }
}
