//! `mcp-pin proxy`: the reviewed lock enforced at run time, between an MCP client and one server.
//!
//! A second front end on the library, beside the commands of [`crate::app`]: it reads the
//! config and the lock as `check` does, reaches the server through [`crate::client`]'s
//! transports, judges with [`crate::diff::verdict`] (the function `check` gates on) and
//! [`crate::probe::judge_call`] (how `check` judges a probe's result), and says every decision
//! through [`crate::sink`]. One module per job:
//! - [`relay`]: the two directions and the one place that owns request ids and the verdict
//!   (`Relay::claim`: every answer matched to the request in flight by the id's value, or
//!   dropped; no byte reaches the client that the judge has not seen, whatever its framing);
//! - [`requests`]: the proxy's own requests to the server (ids no client uses);
//! - [`upstream`]: the server end (stdio or Streamable HTTP), raw text both ways;
//! - [`client_io`]: the client's end (the proxy's stdin and stdout);
//! - [`message`]: a message's envelope, read in place, its id by value;
//! - [`list`]: `tools/list` taken by the listing loop `check` runs ([`crate::client::listing`])
//!   and served judged;
//! - [`judge`]: the verdict on one listing, settled as `check` settles it ([`crate::settle`]),
//!   per tool an [`judge::Action`];
//! - [`call`]: a call decided, a result judged;
//! - [`log`]: the decisions, on stderr and in `--log FILE`.
//!
//! It never writes the lock: accepting a change stays `mcp-pin review` / `mcp-pin lock`.
//! See `docs/proxy.md`.

pub mod call;
pub mod client_io;
pub mod judge;
pub mod list;
pub mod log;
pub mod message;
pub mod relay;
pub mod requests;
pub mod upstream;

use std::path::PathBuf;

use crate::exit::ExitStatus;
use crate::lockfile::{LockText, LockfileError, ScannedLock};

/// What `mcp-pin proxy` was asked to do, validated by the command line.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub config: Option<PathBuf>,
    pub lockfile: Option<PathBuf>,
    /// `--server NAME`: the config's server to relay.
    pub server: Option<String>,
    /// `-- CMD ARGS` or `-- URL`: one server without a config.
    pub ad_hoc: Vec<String>,
    /// `--log FILE`: every decision as a JSON line.
    pub log: Option<PathBuf>,
    /// `--dry-run`: judge and log, change nothing.
    pub dry_run: bool,
    /// `--hide-new-tools` (as `[proxy] new_tools = "hide"`).
    pub hide_new_tools: bool,
    /// `--serve-unpinned` (as `[proxy] unpinned = "serve"`).
    pub serve_unpinned: bool,
}

/// Run the proxy: stdin and stdout are the client's.
pub async fn run(s: Settings) -> ExitStatus {
    let opts = crate::app::Options {
        config: s.config.clone(),
        lockfile: s.lockfile.clone(),
        servers: s.server.iter().cloned().collect(),
        ..crate::app::Options::default()
    };
    let (config, lockfile) = match crate::app::load_config(&opts, &s.ad_hoc) {
        Ok(x) => x,
        Err(e) => return relay::refuse_all(&e.to_string(), e.hint().as_deref()).await,
    };
    let server = match (&s.server, config.servers.len()) {
        (Some(name), _) => config.servers.get(name).cloned(),
        (None, 1) => config.servers.values().next().cloned(),
        (None, _) => {
            let names: Vec<&str> = config.servers.keys().map(String::as_str).collect();
            return relay::refuse_all(
                &format!("the config has {} servers ({}); the proxy relays one", names.len(), names.join(", ")),
                Some(
                    "name it: `mcp-pin proxy --server NAME` (`mcp-pin init --wrap` writes the client config that does)",
                ),
            )
            .await;
        }
    };
    let Some(server) = server else {
        return relay::refuse_all("no server to relay", None).await;
    };
    // Relative paths are the config's: whatever folder the client starts the proxy in.
    let server = server.started_in(&config.dir);
    let mut policy = config.proxy.clone();
    policy.hide_new_tools |= s.hide_new_tools;
    policy.serve_unpinned |= s.serve_unpinned;
    let name = server.name.clone();
    let unpinned_hint = format!(
        "pin it: `mcp-pin lock --server {name}`, review the lock and commit it; to relay a server the lock does not pin, every tool judged as new, set `[proxy] unpinned = \"serve\"` (or pass --serve-unpinned)"
    );
    let entry = match read_entry(&lockfile, &name) {
        Ok(Some(e)) => Some(e),
        Ok(None) if policy.serve_unpinned => None,
        Ok(None) => {
            return relay::refuse_all(
                &format!(
                    "server `{name}` is not in {}: the proxy relays only a server whose tools were reviewed",
                    lockfile.display()
                ),
                Some(&unpinned_hint),
            )
            .await
        }
        Err(LockfileError::Missing { .. }) if policy.serve_unpinned => None,
        Err(e @ LockfileError::Missing { .. }) => return relay::refuse_all(&e.to_string(), Some(&unpinned_hint)).await,
        Err(e) => {
            return relay::refuse_all(
                &format!("{e}; the proxy judges nothing without a readable lock"),
                Some("restore the lockfile from version control, or run `mcp-pin lock`"),
            )
            .await
        }
    };
    let pin = judge::Pin::new(server, entry, &config, policy);
    let log = log::Log::new(&name, s.log.clone(), s.dry_run);
    log.decide(&log::Decision {
        event: log::Event::Proxy,
        tool: None,
        rule: None,
        action: &format!(
            "relaying, judged against {}{}",
            lockfile.display(),
            if pin.entry.is_none() { " (not pinned there: every tool is new)" } else { "" }
        ),
    });
    on_one_thread(pin, log, s.dry_run).await
}

/// Run the relay on a runtime of its own, on one thread. Its work per message is small (an
/// envelope read, a lookup, a write); on a multi-threaded runtime each message also woke another
/// worker thread, which cost more than the work itself (`scripts/bench.sh`, docs/performance.md).
/// A listing's diff still runs off this thread (`spawn_blocking`).
async fn on_one_thread(pin: judge::Pin, log: log::Log, dry_run: bool) -> ExitStatus {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("mcp-pin-proxy".into()).spawn(move || {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(r) => r,
            Err(e) => {
                crate::tell!("error: mcp-pin proxy cannot start its runtime: {e}");
                let _ = tx.send(ExitStatus::Error);
                return;
            }
        };
        let status = runtime.block_on(relay::run(pin, log, dry_run));
        let _ = tx.send(status);
        runtime.shutdown_background();
    });
    if let Err(e) = spawned {
        crate::tell!("error: mcp-pin proxy cannot start its thread: {e}");
        return ExitStatus::Error;
    }
    rx.await.unwrap_or(ExitStatus::Error)
}

/// The server's entry of the lock, its tools left as text.
fn read_entry(path: &std::path::Path, server: &str) -> Result<Option<crate::lockfile::PendingEntry>, LockfileError> {
    let text = LockText::read(path)?;
    let scanned = ScannedLock::scan(text.as_str(), path)?;
    Ok(scanned.pending(&|s| s == server)?.remove(server))
}
