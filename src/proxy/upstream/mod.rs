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

/// Messages from an HTTP server waiting for the relay (a slow client slows the server down
/// instead of growing this queue).
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

/// Sends messages to the server; cheap to clone. A stdio server's stdin is written by the task
/// that sends (no hand-over to another task on the way: the relay sits on every call).
#[derive(Clone)]
pub struct Sender {
    to: To,
    /// Whether the server is reached over HTTP (the relay then computes the mirror headers).
    pub http: bool,
}

#[derive(Clone)]
enum To {
    Stdio(std::sync::Arc<tokio::sync::Mutex<Option<tokio::process::ChildStdin>>>),
    Http(mpsc::Sender<Outgoing>),
}

impl Sender {
    /// Send one message; `false` once the server end is gone.
    pub async fn send(&self, out: Outgoing) -> bool {
        match &self.to {
            // One message per line for the server too (a CR in a client's line is no second
            // request for a server that ends lines at CR).
            To::Stdio(stdin) => stdio::write(stdin, &crate::proxy::message::frame(&out.text)).await,
            To::Http(tx) => tx.send(out).await.is_ok(),
        }
    }
}

/// Receives what the server sends, in order.
pub enum Receiver {
    /// A stdio server's stdout, read by the task that receives.
    Stdio(stdio::Lines),
    Http(mpsc::Receiver<Incoming>),
}

impl Receiver {
    /// The next message, or why nothing more comes (`None` after that).
    pub async fn recv(&mut self) -> Option<Incoming> {
        match self {
            Receiver::Stdio(lines) => lines.next().await,
            Receiver::Http(rx) => rx.recv().await,
        }
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
pub async fn connect(server: &ServerConfig) -> Result<(Sender, Receiver, Closer), ClientError> {
    match &server.transport {
        Transport::Stdio(cfg) => {
            let (stdin, lines, closer) = stdio::start(cfg)?;
            let to = To::Stdio(std::sync::Arc::new(tokio::sync::Mutex::new(Some(stdin))));
            Ok((Sender { to, http: false }, Receiver::Stdio(lines), Closer::Stdio(closer)))
        }
        Transport::Http(cfg) => {
            let (in_tx, in_rx) = mpsc::channel(QUEUE);
            let (out_tx, out_rx) = mpsc::channel(QUEUE);
            let closer = http::start(server, cfg, out_rx, in_tx).await?;
            Ok((Sender { to: To::Http(out_tx), http: true }, Receiver::Http(in_rx), Closer::Http(closer)))
        }
    }
}
