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
use crate::sandbox::Confinement;

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
            // Never inside a secret: at a line break, or past what could straddle the cut.
            let cut = crate::secrets::safe_cut_from(&buf, buf.len() - STDERR_KEEP);
            buf.drain(..cut);
        }
    }

    /// The last few KB of stderr as text, masked (before any caller cuts or splits it).
    pub fn text(&self) -> String {
        let buf = self.0.lock().unwrap();
        crate::secrets::mask(String::from_utf8_lossy(&buf).trim()).into_owned()
    }
}

/// A running child server: the pipes rmcp uses, and the process to reap.
pub struct ChildServer {
    pub child: Child,
    pub reader: DuplexStream,
    pub writer: DuplexStream,
    pub stderr: StderrTail,
    /// Started under the helper, which ends the server and everything it started.
    pub supervised: bool,
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

fn slots() -> &'static Arc<tokio::sync::Semaphore> {
    CHILD_SLOTS.get_or_init(|| Arc::new(tokio::sync::Semaphore::new(DEFAULT_MAX_CHILDREN)))
}

tokio::task_local! {
    /// A slot taken ahead for the server this task starts ([`with_slot`]).
    static GRANTED: std::sync::Mutex<Option<tokio::sync::OwnedSemaphorePermit>>;
}

/// A slot for one more running server, held until the session that uses it ends: the one
/// granted to this task ([`with_slot`]) when there is one, else the next free one.
pub async fn child_slot() -> tokio::sync::OwnedSemaphorePermit {
    if let Ok(Some(granted)) = GRANTED.try_with(|g| g.lock().ok().and_then(|mut g| g.take())) {
        return granted;
    }
    slots().clone().acquire_owned().await.expect("the child-slot semaphore is never closed")
}

/// A slot if one is free now (never waits).
pub fn try_child_slot() -> Option<tokio::sync::OwnedSemaphorePermit> {
    slots().clone().try_acquire_owned().ok()
}

/// `n` slots if that many are free now (never waits), one permit each.
pub fn try_child_slots(n: usize) -> Option<Vec<tokio::sync::OwnedSemaphorePermit>> {
    let mut all = slots().clone().try_acquire_many_owned(u32::try_from(n).ok()?).ok()?;
    let mut out: Vec<_> = (1..n).filter_map(|_| all.split(1)).collect();
    out.push(all);
    Some(out)
}

/// Run `fut` with `slot` granted to the first server it starts ([`child_slot`]).
pub async fn with_slot<F: std::future::Future>(slot: tokio::sync::OwnedSemaphorePermit, fut: F) -> F::Output {
    GRANTED.scope(std::sync::Mutex::new(Some(slot)), fut).await
}

/// A server process as started: the child (the helper when `supervised`).
pub struct Started {
    pub child: Child,
    /// Started under the helper ([`crate::sandbox`]), which ends the server and everything it
    /// started.
    pub supervised: bool,
}

/// Start a stdio server process under the helper ([`crate::sandbox`]) with the given
/// confinement (or directly where there is no helper: Windows, or mcp-pin used as a library
/// without one), its environment ([`child_env`]), piped stdin, stdout and stderr, leading its own
/// process group, registered with [`running`] so a signal to mcp-pin ends it. What reads its
/// pipes is the caller's ([`spawn`]; the proxy relays them raw).
pub fn spawn_process(cfg: &Stdio, confinement: Confinement<'_>) -> Result<Started, ClientError> {
    let env = child_env(cfg);
    let spawn_error = |source: std::io::Error| ClientError::Spawn {
        command: cfg.command_template.clone(),
        cwd: cfg.cwd.as_ref().map(|p| p.display().to_string()),
        source,
    };
    let path_env = env.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.as_str());
    let launch = crate::sandbox::launch(&cfg.command, &cfg.args, path_env, cfg.cwd.as_deref(), confinement)
        .map_err(spawn_error)?;
    let supervised = launch.is_some();
    // The helper reads the server's command line from a pipe (never from its own command line).
    #[cfg(unix)]
    let mut argv_pipe: Option<std::os::fd::OwnedFd> = None;
    let mut cmd = match launch {
        Some(l) => {
            let mut c = Command::new(l.program);
            c.args(l.args);
            #[cfg(unix)]
            {
                argv_pipe = Some(hand_over(&mut c, l.argv).map_err(spawn_error)?);
            }
            c
        }
        None if matches!(confinement, Confinement::Sandbox { .. }) => {
            return Err(ClientError::Spawn {
                command: cfg.command_template.clone(),
                cwd: None,
                source: std::io::Error::other("no sandbox: mcp-pin's helper program is not available"),
            })
        }
        None => {
            let mut c = Command::new(&cfg.command);
            c.args(&cfg.args);
            c
        }
    };
    cmd.env_clear()
        .envs(env)
        .stdin(ProcStdio::piped())
        .stdout(ProcStdio::piped())
        .stderr(ProcStdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = &cfg.cwd {
        cmd.current_dir(cwd);
    }
    #[cfg(unix)]
    cmd.process_group(0);
    let child = cmd.spawn().map_err(spawn_error)?;
    // The child has its copy of the read end now.
    #[cfg(unix)]
    drop(argv_pipe);
    if let Some(pid) = child.id() {
        running::add(pid);
    }
    Ok(Started { child, supervised })
}

/// Give the helper `argv` on descriptor [`crate::sandbox::ARGV_FD`]: the read end of a pipe,
/// put there in the child just before it runs the helper, while a thread writes `argv` into it
/// and closes it. Returns the parent's read end, to drop once the child is started.
#[cfg(unix)]
#[allow(
    unsafe_code,
    reason = "a descriptor duplicated with fcntl and put in place with dup2 between fork and exec, each block with its SAFETY note"
)]
fn hand_over(cmd: &mut Command, argv: Vec<u8>) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let (reader, mut writer) = std::io::pipe()?;
    // Above stderr, so the child's own stdio set-up never lands on it (both ends close on exec).
    // SAFETY: fcntl duplicating a descriptor we own; the copy is owned by the OwnedFd.
    let reader: OwnedFd = unsafe {
        let fd = libc::fcntl(reader.as_raw_fd(), libc::F_DUPFD_CLOEXEC, crate::sandbox::ARGV_FD + 1);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        OwnedFd::from_raw_fd(fd)
    };
    let raw = reader.as_raw_fd();
    let target = crate::sandbox::ARGV_FD;
    // SAFETY: dup2 is async-signal-safe; it runs in the child between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(raw, target) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // A pipe holds 64 KiB, or one page when the user's pipes are over their soft limit: the
    // bytes go from a thread, which ends when they are read or the helper is gone.
    std::thread::Builder::new().name("mcp-pin-argv".into()).spawn(move || {
        let _ = writer.write_all(&argv);
    })?;
    Ok(reader)
}

/// Start a stdio server ([`spawn_process`]) for rmcp: its stdout teed by JSON-RPC id into the
/// capture, its stderr's tail kept.
pub fn spawn(cfg: &Stdio, capture: Arc<Capture>, confinement: Confinement<'_>) -> Result<ChildServer, ClientError> {
    let Started { mut child, supervised } = spawn_process(cfg, confinement)?;
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
    Ok(ChildServer { child, reader: theirs, writer: rmcp_writer, stderr: tail, supervised })
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
        let mut initialize = false;
        if let Ok(req) = serde_json::from_slice::<Req>(&line) {
            initialize = req.method.as_deref() == Some("initialize");
            if let (Some(method), Some(id)) = (&req.method, req.id) {
                capture.expect(id.get(), method);
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
        // The identity the session presents goes on the wire exactly as its client sends it.
        if let Some(stamped) = capture.presented().filter(|_| initialize).and_then(|p| p.stamp_line(&line)) {
            line = stamped;
        }
        // A tool call carries its arguments, not rmcp's progress token (`without_progress_token`).
        if let Some(stripped) = super::line_without_progress_token(&line) {
            line = stripped;
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
        if line.capacity() > 1 << 20 {
            line = Vec::new(); // a large line's buffer is not kept for the session's life
        }
        line.clear();
        // While the surface is read, a line is read only as far as its cap allows (and one
        // byte more, to know it passed): nothing past `max_listing_bytes` is ever in memory.
        let limit = MAX_LINE.min(capture.allowance().saturating_add(1));
        match (&mut reader).take(limit as u64).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if capture.charge(line.len()).is_err() {
            break;
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

    /// Signal every running server's process group: TERM, then KILL what is still there after
    /// [`END_WAIT`]. Synchronous: called on the way out of the process. A server runs under the
    /// helper, which on TERM ends the server and everything below it within its grace time: the
    /// wait lets it finish that (a KILL of the helper would leave the server's own children).
    pub fn end_all() {
        let pids: Vec<u32> = PIDS.lock().unwrap_or_else(|e| e.into_inner()).iter().copied().collect();
        #[cfg(unix)]
        {
            use nix::sys::signal::{killpg, Signal};
            use nix::unistd::Pid;
            for pid in &pids {
                let _ = killpg(Pid::from_raw(*pid as i32), Signal::SIGTERM);
            }
            let deadline = std::time::Instant::now() + super::END_WAIT;
            while !pids.iter().all(|p| super::gone(*p)) && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            for pid in &pids {
                let _ = killpg(Pid::from_raw(*pid as i32), Signal::SIGKILL);
            }
        }
        let _ = pids;
    }
}

/// How long a server (its helper) has to end after SIGTERM before it is killed: the helper's
/// grace for the server and the time to end what the server started.
pub const END_WAIT: std::time::Duration = std::time::Duration::from_millis(2000);
/// The same for a server started without the helper (the helper's grace alone).
const END_WAIT_BARE: std::time::Duration = std::time::Duration::from_millis(500);

/// Whether the process `pid` has exited (gone, or a zombie not reaped yet).
#[cfg(unix)]
fn gone(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(s) => s.rfind(')').is_some_and(|i| s[i + 1..].trim_start().starts_with('Z')),
            Err(_) => true,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), None).is_err()
    }
}

/// Stop a child server and everything it started (npx starts node, which starts the server):
/// SIGTERM to its process group, then SIGKILL if it has not exited in time. Under the helper the
/// group is the helper alone; it ends the server and every process below it.
pub async fn stop(mut child: Child, supervised: bool) {
    if let Some(pid) = child.id() {
        running::remove(pid);
    }
    #[cfg(unix)]
    if let Some(pid) = child.id() {
        let pgid = nix::unistd::Pid::from_raw(pid as i32);
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGTERM);
        let wait = if supervised { END_WAIT } else { END_WAIT_BARE };
        if tokio::time::timeout(wait, child.wait()).await.is_ok() {
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
            return;
        }
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    }
    let _ = supervised;
    let _ = child.kill().await;
    let _ = child.wait().await;
}
