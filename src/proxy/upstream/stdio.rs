//! A stdio server for the relay: started by [`crate::client::stdio::spawn_process`] (the same
//! environment, working folder, helper and process boundary as for `check`), its stdout read line by line
//! (each line bounded by [`crate::client::stdio::MAX_LINE`] while it is read), its stderr passed
//! on through the sink.

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::Incoming;
use crate::client::stdio::{StderrTail, MAX_LINE};
use crate::client::ClientError;
use crate::config::Stdio;

/// A message up to this size is written with its line break in one system call.
const SMALL: usize = 64 * 1024;
/// The longest line of the server's stderr passed on at once (a longer one is cut in pieces).
const STDERR_LINE: usize = 16 * 1024;

pub struct Closer {
    child: Child,
    supervised: bool,
    stderr: StderrTail,
}

impl Closer {
    /// End the server and everything it started (under the helper, which ends its whole tree;
    /// else its process group: TERM, a moment, KILL).
    pub async fn close(self) {
        crate::client::stdio::stop(self.child, self.supervised).await;
    }

    pub fn stderr(&self) -> String {
        self.stderr.text()
    }
}

/// Start the server: its stdin to write to, its stdout to read from, and its stderr passed on.
pub fn start(cfg: &Stdio) -> Result<(ChildStdin, Lines, Closer), ClientError> {
    // Under the helper, as for `check`: the process boundary holds for a proxied server too.
    let crate::client::stdio::Started { mut child, supervised } =
        crate::client::stdio::spawn_process(cfg, crate::sandbox::Confinement::Session)?;
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let tail = StderrTail::default();
    tokio::spawn(pass_stderr(stderr, tail.clone()));
    let lines = Lines { reader: BufReader::with_capacity(1 << 16, stdout), warned: false, done: false };
    Ok((stdin, lines, Closer { child, supervised, stderr: tail }))
}

/// Write one message and its line break to the server's stdin; `false` once it is closed.
pub async fn write(stdin: &tokio::sync::Mutex<Option<ChildStdin>>, text: &str) -> bool {
    let mut slot = stdin.lock().await;
    let Some(w) = slot.as_mut() else { return false };
    let sent = async {
        // One write for a small message (a copy costs less than a second system call).
        if text.len() < SMALL {
            let mut line = Vec::with_capacity(text.len() + 1);
            line.extend_from_slice(text.as_bytes());
            line.push(b'\n');
            w.write_all(&line).await?;
        } else {
            w.write_all(text.as_bytes()).await?;
            w.write_all(b"\n").await?;
        }
        w.flush().await
    };
    if sent.await.is_err() {
        *slot = None;
        return false;
    }
    true
}

/// The server's stdout, one message per line.
pub struct Lines {
    reader: BufReader<ChildStdout>,
    warned: bool,
    done: bool,
}

impl Lines {
    /// The next message; [`Incoming::Closed`] once, then `None`.
    pub async fn next(&mut self) -> Option<Incoming> {
        if self.done {
            return None;
        }
        let why = loop {
            let mut line = Vec::new();
            match (&mut self.reader).take(MAX_LINE as u64).read_until(b'\n', &mut line).await {
                Ok(0) => break "the server closed its stdout (it exited)".to_string(),
                Err(e) => break format!("reading the server's stdout failed: {e}"),
                Ok(_) => {}
            }
            if line.len() >= MAX_LINE && !line.ends_with(b"\n") {
                break format!(
                    "the server sent a line of over {} MiB on stdout with no line break; mcp-pin stopped reading it",
                    MAX_LINE >> 20
                );
            }
            while matches!(line.last(), Some(b'\n' | b'\r')) {
                line.pop();
            }
            let first = line.iter().copied().find(|b| !b.is_ascii_whitespace());
            match (first, String::from_utf8(line)) {
                (None, _) => continue,
                (Some(b'{' | b'['), Ok(text)) => return Some(Incoming::Message(std::sync::Arc::new(text))),
                (_, text) => {
                    // Not JSON-RPC: never passed to the client, whose stdout must stay JSON-RPC.
                    if !self.warned {
                        self.warned = true;
                        let shown =
                            text.map(|t| crate::client::capture::excerpt(&t)).unwrap_or_else(|_| "(not UTF-8)".into());
                        crate::tell!(
                            "mcp-pin proxy: the server printed non-JSON on stdout (reserved for MCP messages); not passed on: {}",
                            crate::json::escape_line(&shown)
                        );
                    }
                }
            }
        };
        self.done = true;
        Some(Incoming::Closed(why))
    }
}

/// The server's stderr, line by line, to mcp-pin's stderr through the sink (masked, no line of
/// it read as a workflow command), and its tail kept for error messages.
async fn pass_stderr(stderr: tokio::process::ChildStderr, tail: StderrTail) {
    let mut reader = BufReader::new(stderr);
    loop {
        let mut line = Vec::new();
        match (&mut reader).take(STDERR_LINE as u64).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        tail.push(&line);
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        crate::tell!("{}", crate::json::escape_for_display(text));
    }
}
