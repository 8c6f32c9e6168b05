//! Talking MCP to one server through rmcp: connect (stdio or Streamable HTTP), take the surface
//! raw, and make raw tool calls for the probes.

pub mod body;
pub mod capture;
pub mod http;
pub mod identity;
pub mod listing;
pub mod oauth;
pub mod roots;
mod sandboxed;
pub mod stdio;

pub use sandboxed::NoSandbox;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ClientRequest, PaginatedRequestParams};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::config::{ServerConfig, Transport};
use crate::sandbox::Confinement;
use crate::surface::ServerSurface;
use capture::{Capture, RawResponse, BYTES_PER_VALUE};
use identity::Presented;

/// Protocol revisions mcp-pin speaks, newest first. 2026-07-28 is stateless (`server/discover`);
/// the others use `initialize`.
pub const PREFERRED_VERSIONS: &[&str] = &["2026-07-28"];
/// The revision offered in a legacy `initialize` (the server answers with the newest it speaks).
pub const LEGACY_VERSION: &str = "2025-11-25";
/// How long rmcp's automatic lifecycle waits for `server/discover` before it tries `initialize`
/// (`DEFAULT_AUTO_DISCOVER_TIMEOUT` in rmcp 3.11, not configurable).
const AUTO_DISCOVER_WAIT: Duration = Duration::from_secs(10);
/// At most this many `tools/list` pages are followed.
pub const MAX_PAGES: usize = 10_000;
/// What a listing may hold, and how much of it the pages so far used.
#[derive(Debug, Clone, Copy)]
pub struct Allowance {
    max_tools: usize,
    max_values: usize,
    values: usize,
}

impl Allowance {
    /// A listing of `server`: at most `max_tools` tools, and a JSON value per
    /// [`BYTES_PER_VALUE`] bytes of `max_listing_bytes`.
    pub fn of(server: &ServerConfig) -> Allowance {
        Allowance { max_tools: server.max_tools, max_values: server.max_listing_bytes / BYTES_PER_VALUE, values: 0 }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot start `{command}`{}: {source}", cwd.as_ref().map(|c| format!(" in {c}")).unwrap_or_default())]
    Spawn {
        command: String,
        cwd: Option<String>,
        #[source]
        source: std::io::Error,
    },
    #[error("handshake failed: {0}")]
    Handshake(String),
    #[error("needs credentials: the server answered {status} ({www_authenticate}); {}", credentials_advice(sent))]
    NeedsCredentials {
        status: u16,
        www_authenticate: String,
        /// The names of the headers sent (empty: none was set).
        sent: Vec<String>,
    },
    #[error("{what} got no answer within {}", humanize(*after))]
    Timeout { what: String, after: Duration },
    /// The configured `timeout` passed during the handshake (each phase gets all of it).
    #[error("{what} got no answer within {} (the server's `timeout`); if it is only slow to start (a first `npx` download, say), raise `timeout` for this server in the config, e.g. `timeout = \"2m\"`; if it never answers, run its command by hand to see what it waits for{context}", humanize(*after))]
    HandshakeTimeout { what: String, after: Duration, context: String },
    /// The surface passed `max_listing_bytes` while it was read (nothing of it was parsed).
    #[error("the server sent more than {} for its surface (the handshake and every tools/list page together); mcp-pin stopped reading it before parsing any of it. If the server really lists that much, raise `max_listing_bytes` for it in the config (docs/config.md)", capture::size_words(*cap))]
    ListingTooLarge { cap: usize },
    /// The listing holds more JSON values than its byte cap allows (refused before any of its
    /// tools is parsed).
    #[error("tools/list page {page} takes the listing past {max} JSON values (one per {} bytes of `max_listing_bytes`; real surfaces hold one per 20 bytes or more); mcp-pin stops there, before parsing them. If the server really lists that much, raise `max_listing_bytes` for it in the config (docs/config.md)", BYTES_PER_VALUE)]
    TooManyValues { max: usize, page: usize },
    /// The listing has more tools than `max_tools` (refused before any of its tools is parsed).
    #[error("tools/list lists more than {max} tools (page {page}); mcp-pin stops there, before parsing them. If the server really has that many, raise `max_tools` for it in the config")]
    TooManyTools { max: usize, page: usize },
    #[error("{0}")]
    Protocol(String),
    #[error("connection failed: {0}")]
    Transport(String),
}

pub fn humanize(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

/// What every connection attempt to one HTTP server shares: its HTTP client (the redirect
/// policy, the identity's `User-Agent`), the configured headers, and the OAuth token, obtained
/// once per [`Session::connect`].
/// What every request to one Streamable HTTP server is sent with: the client (redirects only
/// within the origin, configured headers never to another one, the presented `User-Agent`), the
/// configured headers and the OAuth authorization (a token, DPoP when configured). `check` hands
/// them to rmcp's transport; the proxy relays raw messages with them
/// ([`http::CapturingHttp::send_post`]).
pub struct HttpSetup {
    client: reqwest::Client,
    pub headers: std::collections::HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>,
    auth: Option<oauth::Authorization>,
}

impl HttpSetup {
    /// The setup of `server` (an OAuth grant runs here when configured, within `deadline`).
    pub async fn new(
        server: &ServerConfig,
        cfg: &crate::config::Http,
        presented: &Presented,
        deadline: tokio::time::Instant,
    ) -> Result<HttpSetup, ClientError> {
        // The configured headers go with each request (never as the client's defaults), so a
        // redirect to another origin can be sent without them.
        let mut headers = std::collections::HashMap::new();
        for (k, v) in &cfg.headers {
            let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
                .map_err(|_| ClientError::Protocol(format!("header name `{k}` is not a valid HTTP header name")))?;
            let mut value = reqwest::header::HeaderValue::from_str(v).map_err(|_| {
                ClientError::Protocol(format!("the value of header `{k}` is not a valid HTTP header value"))
            })?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        let mut builder = reqwest::Client::builder().redirect(http::redirect_policy()).connect_timeout(server.timeout);
        if let Some(agent) = presented.info.user_agent {
            builder = builder.user_agent(agent);
        }
        let client = builder.build().map_err(|e| ClientError::Transport(e.to_string()))?;
        let auth = match &cfg.oauth {
            Some(o) => {
                let deadline = oauth::Deadline { at: deadline, total: server.timeout };
                Some(oauth::authorize(&client, &cfg.url, o, deadline).await?)
            }
            None => None,
        };
        Ok(HttpSetup { client, headers, auth })
    }

    /// The HTTP client of one connection, its bodies read through `capture`.
    pub fn capturing(&self, cfg: &crate::config::Http, capture: Arc<Capture>) -> http::CapturingHttp {
        http::CapturingHttp {
            client: self.client.clone(),
            capture,
            configured: Arc::new(self.headers.keys().cloned().collect()),
            redirect_origins: Arc::new(cfg.allow_redirects.clone()),
            dpop: self.auth.as_ref().and_then(|a| a.dpop.clone()).map(|key| {
                Arc::new(oauth::dpop::Binding::new(
                    key,
                    self.auth.as_ref().map(|a| a.token.clone()).unwrap_or_default(),
                ))
            }),
        }
    }

    /// The bearer token an OAuth grant gave (`None` without `oauth`).
    pub fn auth_header(&self) -> Option<String> {
        self.auth.as_ref().map(|a| a.token.clone())
    }
}

enum Process {
    None,
    /// A child server (under the helper when `supervised`) and its slot among the
    /// `--max-children` that may run at once.
    Child {
        child: Box<tokio::process::Child>,
        supervised: bool,
        slot: tokio::sync::OwnedSemaphorePermit,
    },
}

/// A live connection to one server.
pub struct Session {
    service: RunningService<RoleClient, roots::Client>,
    capture: Arc<Capture>,
    process: Process,
    stderr: Option<stdio::StderrTail>,
    timeout: Duration,
    /// The handshake's `result` exactly as sent (taken from the capture once).
    handshake: std::sync::OnceLock<Option<Value>>,
    /// At most this many tools are read (`max_tools`).
    max_tools: usize,
    /// At most this many JSON values are parsed (`max_listing_bytes` / [`BYTES_PER_VALUE`]).
    max_values: usize,
    /// The folder the server works in (stdio), against which probe arguments resolve paths.
    working_dir: Option<PathBuf>,
    /// The roots declared to it, as a `roots/list` result.
    roots: Value,
    /// A sandboxed session's scratch folder (removed after the server ended); tool arguments
    /// naming the project folder are rewritten to its copy there.
    scratch: Option<crate::sandbox::scratch::Scratch>,
}

/// A tool call's raw outcome.
#[derive(Debug, Clone)]
pub enum CallOutcome {
    /// The JSON-RPC `result`, exactly as sent.
    Result(Value),
    /// A JSON-RPC error.
    RpcError { code: i64, message: String },
    /// No answer within the timeout (the request was cancelled).
    Timeout,
}

impl Session {
    /// Connect and handshake as the client the server's config names ([`identity`]): a plain
    /// `initialize` offering that client's revision, or, as mcp-pin itself, `server/discover`
    /// for stateless 2026-07-28 servers, falling back to `initialize` for legacy ones. Some legacy
    /// servers answer `server/discover` with something that is neither a result nor a "method
    /// not found" (an empty result, say), which makes the automatic lifecycle fail; those get a
    /// second connection with a plain `initialize`. One deadline (`timeout`) covers OAuth
    /// (discovery and token requests) and the handshake.
    pub async fn connect(server: &ServerConfig) -> Result<Session, ClientError> {
        Session::connect_confined(server, Confinement::Session).await
    }

    /// [`Session::connect`] with a stdio server confined as given (see [`crate::sandbox`]).
    async fn connect_confined(server: &ServerConfig, confinement: Confinement<'_>) -> Result<Session, ClientError> {
        let presented = Presented::of(server);
        let deadline = tokio::time::Instant::now() + server.timeout;
        let http = match &server.transport {
            Transport::Http(cfg) => Some(HttpSetup::new(server, cfg, &presented, deadline).await?),
            Transport::Stdio(_) => None,
        };
        let lifecycle = presented.lifecycle();
        let auto = matches!(lifecycle, ClientLifecycleMode::Auto { .. });
        let again = || {
            Session::connect_with(server, &presented, ClientLifecycleMode::Initialize, http.as_ref(), None, confinement)
        };
        match Session::connect_with(server, &presented, lifecycle, http.as_ref(), Some(deadline), confinement).await {
            Err(ClientError::Handshake(first)) if auto => match again().await {
                Ok(s) => Ok(s),
                Err(ClientError::Handshake(second)) if second == first => Err(ClientError::Handshake(first)),
                Err(ClientError::Handshake(second)) => Err(ClientError::Handshake(format!(
                    "{second}\n  (before that, server/discover failed: {})",
                    first.lines().next().unwrap_or("")
                ))),
                Err(e) => Err(e),
            },
            // Within a configured timeout shorter than rmcp's wait for `server/discover`, rmcp never
            // got to try `initialize`: try it alone, on a new connection, with a timeout of its own.
            Err(ClientError::HandshakeTimeout { .. }) if auto && server.timeout <= AUTO_DISCOVER_WAIT => {
                match again().await {
                    Err(ClientError::HandshakeTimeout { what, after, context }) => Err(ClientError::HandshakeTimeout {
                        what: format!("{what}, like server/discover before it,"),
                        after,
                        context,
                    }),
                    other => other,
                }
            }
            other => other,
        }
    }

    /// One connection attempt, its handshake done before `deadline` (`None`: a `timeout` of its
    /// own, from now). A surface that passes `max_listing_bytes` during the handshake is refused
    /// as such, whatever else failed with it.
    async fn connect_with(
        server: &ServerConfig,
        presented: &Presented,
        lifecycle: ClientLifecycleMode,
        http: Option<&HttpSetup>,
        deadline: Option<tokio::time::Instant>,
        confinement: Confinement<'_>,
    ) -> Result<Session, ClientError> {
        let capture = Arc::new(Capture::with_budget(server.max_listing_bytes).presenting(presented.clone()));
        let deadline = deadline.unwrap_or_else(|| tokio::time::Instant::now() + server.timeout);
        let opened = Session::open(server, presented, lifecycle, http, deadline, capture.clone(), confinement).await;
        match (opened, capture.over_budget()) {
            (Err(_), Some(over)) => Err(ClientError::ListingTooLarge { cap: over.cap }),
            (opened, _) => opened,
        }
    }

    async fn open(
        server: &ServerConfig,
        presented: &Presented,
        lifecycle: ClientLifecycleMode,
        http: Option<&HttpSetup>,
        deadline: tokio::time::Instant,
        capture: Arc<Capture>,
        confinement: Confinement<'_>,
    ) -> Result<Session, ClientError> {
        let info = presented.rmcp_config();
        let (working_dir, declared_roots) = match &server.transport {
            Transport::Stdio(cfg) if presented.declares("roots") => (roots::working_dir(cfg), roots::roots(cfg)),
            Transport::Stdio(cfg) => (roots::working_dir(cfg), vec![]),
            Transport::Http(_) => (None, vec![]),
        };
        let roots_result = roots::as_result(&declared_roots);
        let info = roots::Client { info, roots: declared_roots };
        let phase = match (&lifecycle, server.timeout <= AUTO_DISCOVER_WAIT) {
            (ClientLifecycleMode::Initialize, _) => "the handshake (initialize)",
            (_, true) => "the handshake (server/discover)",
            (_, false) => "the handshake (server/discover, then initialize)",
        };
        let session = |service, process, stderr| Session {
            service,
            capture: capture.clone(),
            process,
            stderr,
            timeout: server.timeout,
            handshake: Default::default(),
            max_tools: server.max_tools,
            max_values: server.max_listing_bytes / BYTES_PER_VALUE,
            working_dir: working_dir.clone(),
            roots: roots_result.clone(),
            scratch: None,
        };
        match (&server.transport, http) {
            (Transport::Stdio(cfg), _) => {
                let slot = stdio::child_slot().await;
                let child = stdio::spawn(cfg, capture.clone(), confinement)?;
                let stderr = child.stderr.clone();
                let supervised = child.supervised;
                let mut process = child.child;
                let fut = info.serve_with_lifecycle((child.reader, child.writer), lifecycle);
                match tokio::time::timeout_at(deadline, fut).await {
                    Ok(Ok(service)) => Ok(session(
                        service,
                        Process::Child { child: Box::new(process), supervised, slot },
                        Some(stderr),
                    )),
                    Ok(Err(e)) => {
                        // Give the child a moment to print why it stopped.
                        let exited = tokio::time::timeout(Duration::from_millis(300), process.wait()).await;
                        let status = match exited {
                            Ok(Ok(st)) => format!(" (the server exited: {st})"),
                            _ => String::new(),
                        };
                        stdio::stop(process, supervised).await;
                        Err(ClientError::Handshake(with_context(
                            format!("{}{}", describe_init_error(&e), status),
                            &capture,
                            Some(&stderr),
                        )))
                    }
                    Err(_) => {
                        stdio::stop(process, supervised).await;
                        Err(ClientError::HandshakeTimeout {
                            what: phase.into(),
                            after: server.timeout,
                            context: with_context(String::new(), &capture, Some(&stderr)),
                        })
                    }
                }
            }
            (Transport::Http(cfg), Some(setup)) => {
                let http = setup.capturing(cfg, capture.clone());
                let mut transport_config = StreamableHttpClientTransportConfig::with_uri(cfg.url.clone());
                transport_config.custom_headers = setup.headers.clone();
                transport_config.auth_header = setup.auth_header();
                let what = if setup.auth.is_some() { format!("OAuth and {phase}") } else { phase.to_string() };
                let transport = StreamableHttpClientTransport::with_client(http, transport_config);
                let fut = info.serve_with_lifecycle(transport, lifecycle);
                match tokio::time::timeout_at(deadline, fut).await {
                    Ok(Ok(service)) => Ok(session(service, Process::None, None)),
                    Ok(Err(e)) => Err(match (classify_http_error(&e), capture.fatal()) {
                        (ClientError::Transport(msg) | ClientError::Handshake(msg), Some(why)) => {
                            ClientError::Transport(format!("{msg}: {why}"))
                        }
                        (ClientError::Transport(msg), None) if is_handshake_mismatch(&e) => ClientError::Handshake(msg),
                        (ClientError::NeedsCredentials { status, www_authenticate, .. }, _) => {
                            ClientError::NeedsCredentials {
                                status,
                                www_authenticate,
                                sent: cfg.headers.keys().cloned().collect(),
                            }
                        }
                        (other, _) => other,
                    }),
                    Err(_) => Err(ClientError::HandshakeTimeout {
                        what,
                        after: server.timeout,
                        context: with_context(String::new(), &capture, None),
                    }),
                }
            }
            (Transport::Http(_), None) => Err(ClientError::Transport("no HTTP client for an HTTP server".into())),
        }
    }

    /// Negotiated protocol revision.
    pub fn protocol_version(&self) -> String {
        self.service.peer().peer_info().map(|i| i.protocol_version.to_string()).unwrap_or_default()
    }

    /// Send one request and return the raw JSON-RPC response text.
    async fn raw_request(
        &self,
        request: ClientRequest,
        what: &str,
        timeout: Duration,
    ) -> Result<Result<String, ServiceError>, ClientError> {
        let handle = self
            .service
            .peer()
            .send_request_with_option(request, PeerRequestOptions::with_timeout(timeout))
            .await
            .map_err(|e| self.transport_error(what, &e))?;
        let id = serde_json::to_string(&handle.id).unwrap_or_default();
        let typed = handle.await_response().await;
        match self.capture.take(&id) {
            Some(raw) => Ok(Ok(raw)),
            None => Ok(Err(typed.err().unwrap_or(ServiceError::TransportClosed))),
        }
    }

    fn transport_error(&self, what: &str, e: &ServiceError) -> ClientError {
        ClientError::Transport(with_context(format!("{what}: {e}"), &self.capture, self.stderr.as_ref()))
    }

    /// Every page of `tools/list`, each tool's JSON exactly as sent, by name. What the server
    /// sends until the listing ends counts against `max_listing_bytes`.
    pub async fn list_tools(&self) -> Result<BTreeMap<String, Value>, ClientError> {
        let listed = self.list_pages().await;
        self.capture.end_listing();
        match (listed, self.capture.over_budget()) {
            (Err(_), Some(over)) => Err(ClientError::ListingTooLarge { cap: over.cap }),
            (listed, _) => listed,
        }
    }

    async fn list_pages(&self) -> Result<BTreeMap<String, Value>, ClientError> {
        let bounds = listing::Bounds {
            allowance: Allowance { max_tools: self.max_tools, max_values: self.max_values, values: 0 },
            timeout: self.timeout,
            // The capture counts every byte the server sends against `max_listing_bytes`.
            max_bytes: None,
            keep_raw: false,
        };
        let listed = listing::list_all(bounds, |cursor, left, page| self.list_page(cursor, left, page)).await?;
        Ok(listed.tools)
    }

    /// One `tools/list` page, its response's text.
    async fn list_page(&self, cursor: Option<String>, left: Duration, page: usize) -> Result<String, ClientError> {
        let mut params = PaginatedRequestParams::default();
        params.cursor = cursor;
        let req = ClientRequest::ListToolsRequest(rmcp::model::ListToolsRequest {
            method: Default::default(),
            params: Some(params),
            extensions: Default::default(),
        });
        match self.raw_request(req, "tools/list", left).await? {
            Ok(raw) => Ok(raw),
            Err(ServiceError::Timeout { .. }) => Err(ClientError::Timeout {
                what: with_context(
                    format!("tools/list (the whole listing, at page {page})"),
                    &self.capture,
                    self.stderr.as_ref(),
                ),
                after: self.timeout,
            }),
            Err(e) => Err(self.transport_error("tools/list", &e)),
        }
    }

    /// The surface: handshake facts plus every tool.
    pub async fn take_surface(&self) -> Result<ServerSurface, ClientError> {
        let tools = self.list_tools().await?;
        let info = self.service.peer().peer_info();
        let (mut server_info, mut instructions, mut capabilities) = match info.as_deref() {
            Some(i) => (
                i.server_info.as_ref().map(|s| serde_json::to_value(s).unwrap_or(Value::Null)).unwrap_or(Value::Null),
                i.instructions.clone(),
                serde_json::to_value(&i.capabilities).unwrap_or(Value::Null),
            ),
            None => (Value::Null, None, Value::Null),
        };
        // rmcp's typed handshake drops what it does not know (a capability newer than it, a
        // serverInfo field): the raw answer is what gets pinned, the typed one a fallback.
        if let Some(raw) = self.handshake.get_or_init(|| self.capture.take_handshake()) {
            if let Some(c) = raw.get("capabilities") {
                capabilities = c.clone();
            }
            if let Some(si) = raw.get("serverInfo") {
                server_info = si.clone();
            }
            instructions = raw.get("instructions").and_then(Value::as_str).map(str::to_string);
        }
        Ok(ServerSurface { protocol_version: self.protocol_version(), server_info, instructions, capabilities, tools })
    }

    /// Call a tool; the result is read raw. `timeout` bounds the call (it is cancelled after).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
    ) -> Result<CallOutcome, ClientError> {
        self.call_tool_rounds(name, arguments, timeout).await.map(|o| self.outcome_outside(o))
    }

    async fn call_tool_rounds(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
    ) -> Result<CallOutcome, ClientError> {
        // A multi-round-trip call (2026-07-28: `resultType: "input_required"`) is retried with
        // what mcp-pin can answer for itself (an elicitation declined, no roots), the server's
        // `requestState` echoed exactly: at most a few rounds, each a new request (a new id).
        let deadline = tokio::time::Instant::now() + timeout;
        let mut round: (Option<rmcp::model::InputResponses>, Option<String>) = (None, None);
        for _ in 0..MAX_INPUT_ROUNDS {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now()).max(Duration::from_millis(1));
            let outcome = self.call_tool_once(name, arguments.clone(), round.0.take(), round.1.take(), left).await?;
            let CallOutcome::Result(result) = &outcome else { return Ok(outcome) };
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(outcome);
            }
            match own_input_responses(result, &self.roots) {
                Some(responses) => {
                    round = (Some(responses), result.get("requestState").and_then(Value::as_str).map(str::to_string));
                }
                None => return Ok(outcome),
            }
        }
        self.call_tool_once(name, arguments, round.0, round.1, timeout).await
    }

    async fn call_tool_once(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        input_responses: Option<rmcp::model::InputResponses>,
        request_state: Option<String>,
        timeout: Duration,
    ) -> Result<CallOutcome, ClientError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = Some(self.in_place(arguments));
        params.input_responses = input_responses;
        params.request_state = request_state;
        let req = ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params));
        let raw = match self.raw_request(req, "tools/call", timeout).await? {
            Ok(raw) => raw,
            Err(ServiceError::Timeout { .. }) => return Ok(CallOutcome::Timeout),
            Err(ServiceError::McpError(e)) => {
                return Ok(CallOutcome::RpcError { code: e.code.0 as i64, message: e.message.to_string() })
            }
            Err(e) => return Err(self.transport_error("tools/call", &e)),
        };
        let resp: RawResponse = serde_json::from_str(&raw)
            .map_err(|e| ClientError::Protocol(format!("tools/call response is not JSON-RPC: {e}")))?;
        if let Some(err) = resp.error {
            let v: Value = serde_json::from_str(err.get()).unwrap_or(Value::Null);
            return Ok(CallOutcome::RpcError {
                code: v.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: v.get("message").and_then(Value::as_str).unwrap_or("").to_string(),
            });
        }
        let result = resp.result.map(|r| serde_json::from_str(r.get()).unwrap_or(Value::Null));
        Ok(CallOutcome::Result(result.unwrap_or(Value::Null)))
    }

    /// Things worth telling the user that did not stop the run (non-JSON lines on stdout).
    pub fn warnings(&self) -> Vec<String> {
        self.capture
            .junk()
            .first()
            .map(|line| {
                vec![format!(
                    "the server printed non-JSON on stdout, which is reserved for MCP messages (mcp-pin skipped it; some clients fail on it; log to stderr instead): {line}"
                )]
            })
            .unwrap_or_default()
    }

    /// The folder the server works in (a stdio server's `cwd`, else mcp-pin's own), `None` for a
    /// remote server: probe arguments that name project paths resolve against it.
    pub fn working_dir(&self) -> Option<&Path> {
        self.working_dir.as_deref()
    }

    /// The tail of the server's stderr (stdio servers).
    pub fn stderr(&self) -> Option<String> {
        self.stderr.as_ref().map(|s| s.text())
    }

    /// Close the session and stop the server process (and everything it started); a sandboxed
    /// session's scratch folder goes after them.
    pub async fn close(self) {
        let Session { service, process, scratch, .. } = self;
        let _ = tokio::time::timeout(Duration::from_secs(2), service.cancel()).await;
        if let Process::Child { child, supervised, slot } = process {
            stdio::stop(*child, supervised).await;
            drop(slot);
        }
        drop(scratch);
    }
}

/// How many times an `input_required` call is answered and retried.
const MAX_INPUT_ROUNDS: usize = 3;

/// The answers mcp-pin gives on its own to a result's `inputRequests`: an elicitation is
/// declined, a roots request gets the roots declared to the server. `None` when a request needs an answer only a user or a
/// model could give (sampling), or there is nothing to answer: the result then stands.
fn own_input_responses(result: &Value, roots: &Value) -> Option<rmcp::model::InputResponses> {
    let requests = result.get("inputRequests")?.as_object()?;
    let mut out = rmcp::model::InputResponses::new();
    for (key, req) in requests {
        let answer = match req.get("method").and_then(Value::as_str)? {
            "elicitation/create" => serde_json::json!({"action": "decline"}),
            "roots/list" => roots.clone(),
            _ => return None,
        };
        out.insert(key.clone(), answer);
    }
    (!out.is_empty()).then_some(out)
}

/// A digest of a page's `result` (its tools and cursor), ignoring the JSON-RPC id.
pub fn page_digest(raw: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match serde_json::from_str::<RawResponse>(raw) {
        Ok(r) => r.result.map(|v| v.get()).unwrap_or("").hash(&mut h),
        Err(_) => raw.hash(&mut h),
    }
    h.finish()
}

/// A JSON parse error of something the server sent, in words a user can act on.
fn json_problem(e: &serde_json::Error) -> String {
    if e.to_string().contains("recursion limit") {
        "it nests JSON more than 128 levels deep; mcp-pin refuses it (no real schema is that deep: the server is sending something broken)".into()
    } else {
        e.to_string()
    }
}

/// Read one `tools/list` page (a whole JSON-RPC response) into `tools`; return the next cursor.
/// A page that would take the listing past its allowance (`max_tools` tools, a JSON value per
/// [`BYTES_PER_VALUE`] bytes of `max_listing_bytes`) is refused before any of its tools is
/// parsed. `raw_tools`, when given, also gets each tool's text exactly as sent, in the server's
/// order (the proxy serves it).
pub fn parse_tools_page(
    raw: &str,
    page: usize,
    tools: &mut BTreeMap<String, Value>,
    allowance: &mut Allowance,
    mut raw_tools: Option<&mut Vec<(String, String)>>,
) -> Result<Option<String>, ClientError> {
    #[derive(serde::Deserialize)]
    struct Page<'a> {
        #[serde(borrow)]
        tools: Vec<&'a RawValue>,
        #[serde(rename = "nextCursor", default)]
        next_cursor: Option<Value>,
    }
    let resp: RawResponse = serde_json::from_str(raw)
        .map_err(|e| ClientError::Protocol(format!("tools/list response is not JSON-RPC: {e}")))?;
    if let Some(err) = resp.error {
        return Err(ClientError::Protocol(format!("tools/list failed: {}", capture::excerpt(err.get()))));
    }
    let result =
        resp.result.ok_or_else(|| ClientError::Protocol("tools/list response has neither result nor error".into()))?;
    let page_data: Page = serde_json::from_str(result.get()).map_err(|e| {
        if e.to_string().contains("recursion limit") {
            ClientError::Protocol(format!(
                "tools/list page {page}: a tool nests JSON more than 128 levels deep; mcp-pin refuses it (no real schema is that deep: the server is sending something broken)"
            ))
        } else {
            ClientError::Protocol(format!("tools/list page {page}: `tools` is not a list of tools: {e}"))
        }
    })?;
    if tools.len().saturating_add(page_data.tools.len()) > allowance.max_tools {
        return Err(ClientError::TooManyTools { max: allowance.max_tools, page });
    }
    allowance.values = allowance.values.saturating_add(capture::count_values(result.get()));
    if allowance.values > allowance.max_values {
        return Err(ClientError::TooManyValues { max: allowance.max_values, page });
    }
    for (i, raw_tool) in page_data.tools.iter().enumerate() {
        let tool: Value = serde_json::from_str(raw_tool.get()).map_err(|e| {
            ClientError::Protocol(format!("tools/list page {page}, tool #{}: {}", i + 1, json_problem(&e)))
        })?;
        let name = match tool.get("name").and_then(Value::as_str) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => {
                return Err(ClientError::Protocol(format!(
                    "tools/list page {page}, tool #{}: has no `name` ({}); the server sent a malformed tool",
                    i + 1,
                    capture::excerpt(raw_tool.get())
                )))
            }
        };
        match tool.get("inputSchema") {
            Some(Value::Object(_)) => {}
            _ => {
                return Err(ClientError::Protocol(format!(
                "tool `{name}` has no object `inputSchema` (the spec requires one); the server sent a malformed tool"
            )))
            }
        }
        if tools.insert(name.clone(), tool).is_some() {
            return Err(ClientError::Protocol(format!(
                "tools/list lists tool `{name}` more than once; tool names must be unique"
            )));
        }
        if let Some(r) = raw_tools.as_deref_mut() {
            r.push((name, raw_tool.get().to_string()));
        }
    }
    match page_data.next_cursor {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Ok(Some(other.to_string())),
    }
}

/// An error message as a user reads it: rmcp's errors name Rust types
/// (`Transport [rmcp::transport::worker::WorkerTransport<...>]`), which say nothing to a user;
/// they are dropped, and the words around them kept.
pub fn plain_error(msg: &str) -> String {
    static TYPE_NAME: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = TYPE_NAME.get_or_init(|| {
        regex::Regex::new(
            r"[ \t]*(\[[^\]\n]*::[^\]\n]*\]|\b[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)+(<[^\s]*>)?)",
        )
        .expect("valid regex")
    });
    re.replace_all(msg, "").trim().to_string()
}

fn with_context(msg: String, capture: &Capture, stderr: Option<&stdio::StderrTail>) -> String {
    let mut out = match capture.fatal() {
        Some(why) => format!("{msg}: {why}"),
        None => msg,
    };
    let junk = capture.junk();
    if let Some(first) = junk.first() {
        out.push_str(&format!(
            "\n  the server printed non-JSON on stdout (stdout is reserved for MCP messages; log to stderr): {first}"
        ));
    }
    if let Some(tail) = stderr.map(|s| s.text()).filter(|t| !t.is_empty()) {
        let lines: Vec<&str> = tail.lines().collect();
        let start = lines.len().saturating_sub(12);
        out.push_str("\n  server stderr (last lines):");
        for l in &lines[start..] {
            out.push_str("\n    ");
            out.push_str(&capture::excerpt(l));
        }
    }
    out
}

fn describe_init_error(e: &rmcp::service::ClientInitializeError) -> String {
    let s = e.to_string();
    if s.contains("connection closed") || s.contains("ConnectionClosed") {
        "the server closed the connection during the handshake".to_string()
    } else {
        s
    }
}

/// The transport worked but the handshake exchange did not make sense to rmcp.
fn is_handshake_mismatch(e: &rmcp::service::ClientInitializeError) -> bool {
    use rmcp::service::ClientInitializeError as E;
    matches!(e, E::ExpectedInitResult(_) | E::ExpectedInitResponse(_) | E::LegacyFallbackFailed { .. }) || {
        let s = e.to_string();
        s.contains("discover") || s.contains("expect initialized") || s.contains("uncorrelated")
    }
}

/// What to do about a 401 or 403: set `headers` when none was sent; when some were, the server
/// refused them.
fn credentials_advice(sent: &[String]) -> String {
    if sent.is_empty() {
        "set `headers` for this server in the config".into()
    } else {
        format!(
            "it refused the headers sent ({}): check that each value is current and meant for this server (an expired or revoked token, a token of another account, the variable it is read from)",
            sent.iter().map(|h| format!("`{}`", crate::json::escape_line(h))).collect::<Vec<_>>().join(", ")
        )
    }
}

/// Whether the handshake failed on a 403 (insufficient scope) rather than a 401.
fn is_insufficient_scope(e: &rmcp::service::ClientInitializeError) -> bool {
    use rmcp::service::ClientInitializeError as E;
    use rmcp::transport::streamable_http_client::InsufficientScopeError;
    let error = match e {
        E::TransportError { error, .. } => error,
        E::LegacyFallbackFailed { fallback, .. } => return is_insufficient_scope(fallback),
        _ => return false,
    };
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error.error.as_ref());
    while let Some(current) = source {
        if current.downcast_ref::<InsufficientScopeError>().is_some() {
            return true;
        }
        source = current.source();
    }
    false
}

/// What an HTTP start-up failure was, from the transport's typed errors: every 401 and 403 the
/// client sees becomes `AuthRequired` / `InsufficientScope` (with the challenge, empty when the
/// server sent none), so nothing is read back from message text (a port `:44017` or a body that
/// says "4031" is no status).
fn classify_http_error(e: &rmcp::service::ClientInitializeError) -> ClientError {
    if let Some(challenge) = e.auth_challenge() {
        let status = if is_insufficient_scope(e) { 403 } else { 401 };
        return ClientError::NeedsCredentials { status, www_authenticate: challenge.to_string(), sent: vec![] };
    }
    // The transport's own error, without rmcp's wrappers around it ("Send message error
    // Transport error: …, when send initialize request"): what a user acts on.
    if let rmcp::service::ClientInitializeError::TransportError { error, .. } = e {
        use rmcp::transport::streamable_http_client::StreamableHttpError as H;
        match error.error.downcast_ref::<H<reqwest::Error>>() {
            Some(H::UnexpectedServerResponse(said)) => return ClientError::Transport(said.to_string()),
            Some(H::Client(r)) => return ClientError::Transport(http::unreachable(r)),
            _ => {}
        }
    }
    let mut chain = format!("{e}");
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = src {
        chain.push_str(&format!(": {s}"));
        src = s.source();
    }
    ClientError::Transport(chain)
}

/// A `tools/call` as mcp-pin sends it carries the tool's arguments and nothing a server may trip
/// over (RULES.md, "Steady"): rmcp stamps a `progressToken` into every request's `_meta`
/// (`Peer::send_request_with_option`), and a server may fail a call that has one (a load tool
/// that refused it). The token is taken out of `params._meta` on the wire, and `_meta` with it
/// when nothing else is left (what a stateless revision needs there, its protocol version and
/// client, stays). `true` when the message changed. Both transports apply it to what rmcp
/// writes ([`stdio`], [`http`]); the proxy's relay never does (a client's token is its own).
pub fn without_progress_token(message: &mut Value) -> bool {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return false;
    }
    let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else { return false };
    let Some(Value::Object(meta)) = params.get_mut("_meta") else { return false };
    if meta.remove("progressToken").is_none() {
        return false;
    }
    if meta.is_empty() {
        params.remove("_meta");
    }
    true
}

/// [`without_progress_token`] on one line of JSON text (stdio); `None` when it is unchanged.
pub fn line_without_progress_token(line: &[u8]) -> Option<Vec<u8>> {
    let mut message: Value = serde_json::from_slice(line).ok()?;
    if !without_progress_token(&mut message) {
        return None;
    }
    let mut out = serde_json::to_vec(&message).ok()?;
    out.push(b'\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_error_drops_rust_type_names() {
        assert_eq!(
            super::plain_error("tools/list: Transport [rmcp::transport::worker::WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<C>>] error: connection closed"),
            "tools/list: Transport error: connection closed"
        );
        assert_eq!(super::plain_error("a https://x.example/mcp b"), "a https://x.example/mcp b");
        assert_eq!(super::plain_error("line one\n  server stderr: x"), "line one\n  server stderr: x");
    }

    #[test]
    fn a_tool_call_goes_out_without_a_progress_token() {
        use serde_json::json;
        let mut only = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "t", "arguments": {}, "_meta": {"progressToken": 0}}});
        assert!(super::without_progress_token(&mut only));
        assert_eq!(only["params"], json!({"name": "t", "arguments": {}}));
        let mut more =
            json!({"method": "tools/call", "params": {"name": "t", "_meta": {"progressToken": "a", "io.x/v": 1}}});
        assert!(super::without_progress_token(&mut more));
        assert_eq!(more["params"]["_meta"], json!({"io.x/v": 1}));
        let mut other = json!({"method": "tools/list", "params": {"_meta": {"progressToken": 1}}});
        assert!(!super::without_progress_token(&mut other));
        let line = br#"{"method":"tools/call","params":{"name":"t","_meta":{"progressToken":3}}}"#;
        let out = super::line_without_progress_token(line).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&out).unwrap(),
            json!({"method": "tools/call", "params": {"name": "t"}})
        );
    }
}

#[cfg(test)]
mod list_tests {
    /// 2026-07-28 list results carry `ttlMs` and `cacheScope` (and every result `resultType`):
    /// caching hints, not surface. They never reach the pinned tools.
    #[test]
    fn list_caching_fields_are_not_surface() {
        let raw = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"ttlMs":60000,"cacheScope":"user","resultType":"complete"}}"#;
        let mut tools = std::collections::BTreeMap::new();
        let mut allowance = super::Allowance { max_tools: 10, max_values: 100, values: 0 };
        assert_eq!(super::parse_tools_page(raw, 1, &mut tools, &mut allowance, None).unwrap(), None);
        assert_eq!(allowance.values, 9, "the result, its tools list and three hints, and 4 in its tool");
        assert_eq!(tools.len(), 1);
        assert_eq!(tools["t"], serde_json::json!({"name": "t", "inputSchema": {"type": "object"}}));
    }
}

#[cfg(test)]
mod mrtr_tests {
    use serde_json::json;

    #[test]
    fn input_requests_mcp_pin_can_answer_itself() {
        let r = json!({"resultType": "input_required", "requestState": "s1",
                       "inputRequests": {"a": {"method": "elicitation/create", "params": {}}, "b": {"method": "roots/list"}}});
        let got = super::own_input_responses(&r, &json!({"roots": []})).unwrap();
        assert_eq!(got["a"], json!({"action": "decline"}));
        assert_eq!(got["b"], json!({"roots": []}));
        let sampling =
            json!({"resultType": "input_required", "inputRequests": {"c": {"method": "sampling/createMessage"}}});
        assert!(super::own_input_responses(&sampling, &json!({"roots": []})).is_none());
        // The roots declared to the server are the answer to a roots request.
        let declared = json!({"roots": [{"uri": "file:///w", "name": "w"}]});
        assert_eq!(super::own_input_responses(&r, &declared).unwrap()["b"], declared);
        assert!(super::own_input_responses(&json!({"resultType": "input_required"}), &json!({"roots": []})).is_none());
    }
}
