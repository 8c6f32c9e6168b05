//! A server run as a child process, spoken to over its stdin/stdout.
//!
//! We spawn the child ourselves (not rmcp's `TokioChildProcess`) so that every line it prints
//! passes through [`Capture`] before rmcp reads it, and so its stderr is kept for error messages.

use std::process::Stdio as ProcStdio;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStdin, Command};

use super::capture::{Capture, Forward};
use super::ClientError;
use crate::config::Stdio;

/// The largest single message accepted from a server (a `tools/list` page of tens of MB is fine).
pub const MAX_LINE: usize = 256 * 1024 * 1024;
/// How much of the server's stderr is kept (the tail).
const STDERR_KEEP: usize = 16 * 1024;

/// The tail of a child's stderr.
#[derive(Default, Clone)]
pub struct StderrTail(Arc<Mutex<Vec<u8>>>);

impl StderrTail {
    pub fn push(&self, bytes: &[u8]) {
        let mut buf = self.0.lock().unwrap();
        buf.extend_from_slice(bytes);
        if buf.len() > STDERR_KEEP * 2 {
            let cut = buf.len() - STDERR_KEEP;
            buf.drain(..cut);
        }
    }

    /// The last few KB of stderr as text.
    pub fn text(&self) -> String {
        let buf = self.0.lock().unwrap();
        let start = buf.len().saturating_sub(STDERR_KEEP);
        String::from_utf8_lossy(&buf[start..]).trim().to_string()
    }
}

/// A running child server: the pipes rmcp uses, and the process to reap.
pub struct ChildServer {
    pub child: Child,
    pub reader: DuplexStream,
    pub writer: DuplexStream,
    pub stderr: StderrTail,
}

/// Requests we sent that are still unanswered, to recognise a late answer to an abandoned
/// `server/discover`: rmcp gives up on discover after 10 s and sends `initialize`; a slow-starting
/// legacy server may then answer the discover, which rmcp would take for a broken handshake.
#[derive(Default)]
struct Outstanding {
    discover: Mutex<Vec<String>>,
    abandoned: Mutex<Vec<String>>,
}

/// What a stdio server inherits from mcp-pin's environment, as the official MCP SDKs do (the
/// TypeScript SDK's default set): never the whole environment, so one server's secrets (and the
/// CI job's) are not in another server's process. More by name with `inherit_env`.
#[cfg(not(windows))]
pub const INHERITED: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
#[cfg(windows)]
pub const INHERITED: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// The child's whole environment: the default set (values that look like shell functions are
/// skipped, as the SDKs do), then `inherit_env`, then the configured `env`.
pub fn child_env(cfg: &Stdio) -> Vec<(String, String)> {
    let mut out: std::collections::BTreeMap<String, String> = INHERITED
        .iter()
        .filter_map(|k| std::env::var(k).ok().filter(|v| !v.starts_with("()")).map(|v| (k.to_string(), v)))
        .collect();
    out.extend(cfg.inherit_env.iter().map(|(k, v)| (k.clone(), v.clone())));
    out.extend(cfg.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    out.into_iter().collect()
}

/// How many stdio servers may run at once by default (`--max-children`).
pub const DEFAULT_MAX_CHILDREN: usize = 32;

static CHILD_SLOTS: std::sync::OnceLock<Arc<tokio::sync::Semaphore>> = std::sync::OnceLock::new();

/// Set how many stdio servers may run at once (once, before any is started).
pub fn set_max_children(n: usize) {
    let _ = CHILD_SLOTS.set(Arc::new(tokio::sync::Semaphore::new(n.max(1))));
}

/// A slot for one more running server, held until the session that uses it ends.
pub async fn child_slot() -> tokio::sync::OwnedSemaphorePermit {
    let slots = CHILD_SLOTS.get_or_init(|| Arc::new(tokio::sync::Semaphore::new(DEFAULT_MAX_CHILDREN)));
    slots.clone().acquire_owned().await.expect("the child-slot semaphore is never closed")
}

/// Start the server process with its environment ([`child_env`]), piped stdin, stdout and
/// stderr, leading its own process group, registered with [`running`] so a signal to mcp-pin
/// ends it. What reads its pipes is the caller's ([`spawn`]; the proxy relays them raw).
pub fn spawn_process(cfg: &Stdio) -> Result<Child, ClientError> {
    let mut cmd = Command::new(&cfg.command);
    cmd.args(&cfg.args)
        .env_clear()
        .envs(child_env(cfg))
        .stdin(ProcStdio::piped())
        .stdout(ProcStdio::piped())
        .stderr(ProcStdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = &cfg.cwd {
        cmd.current_dir(cwd);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    let child = cmd.spawn().map_err(|source| ClientError::Spawn {
        command: cfg.command_template.clone(),
        cwd: cfg.cwd.as_ref().map(|p| p.display().to_string()),
        source,
    })?;
    if let Some(pid) = child.id() {
        running::add(pid);
    }
    Ok(child)
}

pub fn spawn(cfg: &Stdio, capture: Arc<Capture>) -> Result<ChildServer, ClientError> {
    let mut child = spawn_process(cfg)?;
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let writer = child.stdin.take().expect("piped stdin");

    let tail = StderrTail::default();
    let tail2 = tail.clone();
    tokio::spawn(async move {
        let mut stderr = stderr;
        let mut buf = vec![0u8; 8192];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            tail2.push(&buf[..n]);
        }
    });

    let outstanding = Arc::new(Outstanding::default());
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    tokio::spawn(tee(stdout, ours, capture.clone(), outstanding.clone()));
    let (rmcp_writer, our_reader) = tokio::io::duplex(1 << 20);
    tokio::spawn(forward_requests(our_reader, writer, outstanding, capture));
    Ok(ChildServer { child, reader: theirs, writer: rmcp_writer, stderr: tail })
}

/// Pass what rmcp writes to the child's stdin, noting discover and initialize requests.
async fn forward_requests(
    from: DuplexStream,
    mut stdin: ChildStdin,
    outstanding: Arc<Outstanding>,
    capture: Arc<Capture>,
) {
    #[derive(serde::Deserialize)]
    struct Req<'a> {
        #[serde(borrow, default)]
        id: Option<&'a serde_json::value::RawValue>,
        #[serde(default)]
        method: Option<String>,
    }
    let mut reader = BufReader::new(from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if let Ok(req) = serde_json::from_slice::<Req>(&line) {
            if let (Some(_), Some(id)) = (&req.method, req.id) {
                capture.expect(id.get());
            }
            match (req.method.as_deref(), req.id) {
                (Some("server/discover"), Some(id)) => {
                    outstanding.discover.lock().unwrap().push(super::capture::id_key(id.get()))
                }
                (Some("initialize"), _) => {
                    let pending: Vec<String> = outstanding.discover.lock().unwrap().drain(..).collect();
                    outstanding.abandoned.lock().unwrap().extend(pending);
                }
                _ => {}
            }
        }
        if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
            break;
        }
    }
    let _ = stdin.shutdown().await;
}

/// The JSON-RPC id of a response line, if it is one.
fn response_id(text: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Resp<'a> {
        #[serde(borrow, default)]
        id: Option<&'a serde_json::value::RawValue>,
        #[serde(default)]
        method: Option<serde::de::IgnoredAny>,
    }
    let r: Resp = serde_json::from_str(text.trim()).ok()?;
    if r.method.is_some() {
        return None;
    }
    r.id.map(|id| super::capture::id_key(id.get()))
}

/// Read the child's stdout line by line, capture, and forward what rmcp should see.
async fn tee(
    stdout: tokio::process::ChildStdout,
    mut out: DuplexStream,
    capture: Arc<Capture>,
    outstanding: Arc<Outstanding>,
) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader).take(MAX_LINE as u64).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.len() >= MAX_LINE && !line.ends_with(b"\n") {
            capture.fail(format!(
                "the server sent a line of over {} MiB on stdout with no line break (an endless line); mcp-pin stopped reading it",
                MAX_LINE >> 20
            ));
            break;
        }
        let text = String::from_utf8_lossy(&line);
        if let Some(id) = response_id(&text) {
            outstanding.discover.lock().unwrap().retain(|d| d != &id);
            let mut abandoned = outstanding.abandoned.lock().unwrap();
            if let Some(pos) = abandoned.iter().position(|d| d == &id) {
                // A late answer to a discover rmcp already gave up on.
                abandoned.remove(pos);
                continue;
            }
        }
        let forward = match capture.inspect(&text) {
            Forward::Same => Some(text.trim_end().to_string()),
            Forward::Replace(s) => Some(s),
            Forward::Drop => None,
        };
        if let Some(mut msg) = forward {
            msg.push('\n');
            if out.write_all(msg.as_bytes()).await.is_err() {
                break;
            }
        }
    }
    let _ = out.shutdown().await;
}

/// Every server process mcp-pin started and has not stopped yet (each leads its own process
/// group), so that a signal to mcp-pin ends them all ([`crate::cli::run::on_signal`]).
pub mod running {
    use std::collections::BTreeSet;
    use std::sync::Mutex;

    static PIDS: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

    pub fn add(pid: u32) {
        PIDS.lock().unwrap_or_else(|e| e.into_inner()).insert(pid);
    }

    pub fn remove(pid: u32) {
        PIDS.lock().unwrap_or_else(|e| e.into_inner()).remove(&pid);
    }

    /// Signal every running server's process group: TERM, a moment, then KILL. Synchronous:
    /// called on the way out of the process.
    pub fn end_all() {
        let pids: Vec<u32> = PIDS.lock().unwrap_or_else(|e| e.into_inner()).iter().copied().collect();
        #[cfg(unix)]
        {
            use nix::sys::signal::{killpg, Signal};
            use nix::unistd::Pid;
            for pid in &pids {
                let _ = killpg(Pid::from_raw(*pid as i32), Signal::SIGTERM);
            }
            if !pids.is_empty() {
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
            for pid in &pids {
                let _ = killpg(Pid::from_raw(*pid as i32), Signal::SIGKILL);
            }
        }
        let _ = pids;
    }
}

/// Stop a child server and everything it started (npx starts node, which starts the server).
pub async fn stop(mut child: Child) {
    if let Some(pid) = child.id() {
        running::remove(pid);
    }
    #[cfg(unix)]
    if let Some(pid) = child.id() {
        let pgid = nix::unistd::Pid::from_raw(pid as i32);
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGTERM);
        if tokio::time::timeout(std::time::Duration::from_millis(500), child.wait()).await.is_ok() {
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
            return;
        }
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    }
    let _ = child.kill().await;
    let _ = child.wait().await;
}
