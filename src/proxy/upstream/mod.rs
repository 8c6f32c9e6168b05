//! The server end of the relay: JSON-RPC messages to and from one server, as text, over the
//! transport `check` uses: a child process started exactly as `check` starts it (its environment,
//! process group, the `--max-children`-free single slot), or Streamable HTTP with the same
//! configured headers, OAuth token, DPoP proofs and redirect rules ([`crate::client`]).
//!
//! Messages are never re-typed here: what the server writes reaches the relay as its text, and
//! what the relay sends is written as given.

pub mod http;
pub mod stdio;

use tokio::sync::mpsc;

use crate::client::ClientError;
use crate::config::{ServerConfig, Transport};

/// Messages from the server waiting for the relay (a slow client slows the server down instead
/// of growing this queue).
const QUEUE: usize = 64;

/// One message's text, exactly as it came (no line break): read once, then shared by the
/// relay's tasks without being copied again.
pub type Text = std::sync::Arc<String>;

/// What the server end hands the relay.
#[derive(Debug)]
pub enum Incoming {
    /// One message exactly as the server sent it (no line break).
    Message(Text),
    /// mcp-pin's own JSON-RPC error for a client request that could not reach the server
    /// (HTTP): routed like the server's answer to that request.
    Failed { id: String, message: String },
    /// The server is gone or its transport broke: why. Nothing more comes.
    Closed(String),
}

/// One message for the server: its text and, for HTTP, the headers that mirror it.
#[derive(Debug)]
pub struct Outgoing {
    pub text: Text,
    /// The request id's JSON text, for a request (HTTP answers a failed POST for it).
    pub id: Option<String>,
    /// The protocol revision the message is sent under, when known (HTTP's
    /// `MCP-Protocol-Version`, and the 2026-07-28 mirror headers).
    pub version: Option<String>,
    /// HTTP only: headers that mirror the body (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
    pub headers: Vec<(String, String)>,
}

/// Sends messages to the server; cheap to clone.
#[derive(Clone)]
pub struct Sender {
    tx: mpsc::Sender<Outgoing>,
    /// Whether the server is reached over HTTP (the relay then computes the mirror headers).
    pub http: bool,
}

impl Sender {
    /// Queue one message; `false` once the server end is gone.
    pub async fn send(&self, out: Outgoing) -> bool {
        self.tx.send(out).await.is_ok()
    }
}

/// How the server end is shut down.
pub enum Closer {
    Stdio(stdio::Closer),
    Http(http::Closer),
}

impl Closer {
    /// Stop the server: a child process and its whole process group ended (TERM, then KILL), an
    /// HTTP session deleted.
    pub async fn close(self) {
        match self {
            Closer::Stdio(c) => c.close().await,
            Closer::Http(c) => c.close().await,
        }
    }

    /// The tail of the server's stderr, for an error message (stdio).
    pub fn stderr(&self) -> Option<String> {
        match self {
            Closer::Stdio(c) => Some(c.stderr()),
            Closer::Http(_) => None,
        }
    }
}

/// Start (stdio) or reach (HTTP) the server.
pub async fn connect(server: &ServerConfig) -> Result<(Sender, mpsc::Receiver<Incoming>, Closer), ClientError> {
    let (in_tx, in_rx) = mpsc::channel(QUEUE);
    let (out_tx, out_rx) = mpsc::channel(QUEUE);
    match &server.transport {
        Transport::Stdio(cfg) => {
            let closer = stdio::start(cfg, out_rx, in_tx)?;
            Ok((Sender { tx: out_tx, http: false }, in_rx, Closer::Stdio(closer)))
        }
        Transport::Http(cfg) => {
            let closer = http::start(server, cfg, out_rx, in_tx).await?;
            Ok((Sender { tx: out_tx, http: true }, in_rx, Closer::Http(closer)))
        }
    }
}
