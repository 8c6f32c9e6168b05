//! What each command does, as library functions that take settings and return data: one module
//! per command (`lock`, `check`, `diff`, `review`, `init`, the conformance adapter). What they
//! share is here: the error type, [`Options`], loading the config and picking its servers, taking
//! a live surface, the progress bar and applying the config's policy. Printing and exit codes are
//! the command line's ([`crate::cli::run`]).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::client::Session;
use crate::config::{Config, ConfigError, ServerConfig};
use crate::lockfile::LockfileError;
use crate::report::ServerReport;
use crate::surface::Live;

pub mod check;
pub mod conformance;
mod diff;
pub mod init;
mod lock;
mod review;

pub use crate::calendar::today;
pub use check::check;
pub use diff::diff_locks;
pub use lock::{lock, LockOutcome, LockResult};
pub use review::review;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Lockfile(#[from] LockfileError),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Io(String),
    /// A usage error with what to do about it.
    #[error("{message}")]
    Hinted { message: String, hint: String },
}

impl AppError {
    /// What to do about it, shown as a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        match self {
            AppError::Lockfile(LockfileError::Missing { .. }) => {
                Some("run `mcp-pin lock` to pin the servers first, and commit mcp.lock".into())
            }
            AppError::Lockfile(LockfileError::Conflict { path, .. }) => {
                let f = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                Some(format!(
                    "resolve it as the merge it is, not by locking anew (that would pin the live surface unreviewed): take one side (`git checkout --ours {f}` or `--theirs {f}`), run `mcp-pin check` to see what the other side had pinned, and accept it with `mcp-pin review` or `mcp-pin lock --server NAME` once reviewed; then `git add {f}`"
                ))
            }
            AppError::Lockfile(LockfileError::Syntax { .. } | LockfileError::Invalid { .. }) => Some(
                "restore the lockfile from version control, or delete it and run `mcp-pin lock`".into(),
            ),
            AppError::Hinted { hint, .. } => Some(hint.clone()),
            AppError::Config(
                e @ (ConfigError::NotAllowed { .. } | ConfigError::ShortSecret { .. } | ConfigError::Several(_)),
            ) => e.hint(),
            AppError::Config(ConfigError::Io { .. }) => Some(
                "create mcp-pin.toml (see docs/config.md), pass --config FILE, or lock one server ad hoc: `mcp-pin lock -- CMD ARGS`"
                    .into(),
            ),
            _ => None,
        }
    }
}

/// Options shared by every command, validated once.
#[derive(Debug, Clone)]
pub struct Options {
    pub config: Option<PathBuf>,
    pub lockfile: Option<PathBuf>,
    pub servers: Vec<String>,
    pub jobs: usize,
    pub probe: bool,
    /// `(K, N)`: only every Nth server (sorted by name) from the Kth, 1-based.
    pub shard: Option<(usize, usize)>,
    /// `lock --tool`: accept only these tools' changes.
    pub tools: Vec<String>,
    /// `lock --accept-rejected`: take a live definition the team rejected, and lift the rejection.
    pub accept_rejected: bool,
    /// `--quiet`: only warnings and errors on the way (no line per passed probe).
    pub quiet: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            config: None,
            lockfile: None,
            servers: vec![],
            jobs: DEFAULT_JOBS,
            probe: true,
            shard: None,
            tools: vec![],
            accept_rejected: false,
            quiet: false,
        }
    }
}

/// Servers mostly wait (an `npx` start, a remote server, a slow handshake), so the default is
/// sized for waiting, not for cores: every server of a fleet at once, up to 128. What costs is a
/// child process and its memory, bounded separately (`--max-children`,
/// [`crate::client::stdio::DEFAULT_MAX_CHILDREN`]).
pub const DEFAULT_JOBS: usize = 128;

/// Load the config (or build the ad-hoc one) and resolve the lockfile path. `${VAR}` is resolved
/// only for the servers this run selects (`--server`, `--shard`): a drift-cron job needs only its
/// own servers' secrets, and under CI only those need `--allow-env`.
pub fn load_config(opts: &Options, ad_hoc: &[String]) -> Result<(Config, PathBuf), AppError> {
    let config = if !ad_hoc.is_empty() {
        if opts.config.is_some() {
            return Err(AppError::Usage("give either --config or an ad-hoc command after `--`, not both".into()));
        }
        let cwd = std::env::current_dir().map_err(|e| AppError::Io(e.to_string()))?;
        // An ad-hoc server never lands in (or is looked up in) a project's lock unless asked:
        // that lock belongs to the config here, and its next `lock` would drop the stranger.
        if opts.lockfile.is_none() {
            if let Some(found) = crate::config::discover(&cwd) {
                return Err(AppError::Usage(format!(
                    "this folder has a config ({}) whose servers mcp.lock pins; an ad-hoc server is not one of them. \
                     Add it to the config and run `mcp-pin lock --server NAME`, run from another folder, or pass \
                     `--lockfile FILE` to use a lockfile of its own",
                    found.strip_prefix(&cwd).unwrap_or(&found).display()
                )));
            }
        }
        Config::ad_hoc(cwd, ad_hoc.to_vec())
    } else {
        let path = match &opts.config {
            Some(p) => p.clone(),
            None => {
                let cwd = std::env::current_dir().map_err(|e| AppError::Io(e.to_string()))?;
                match crate::config::discover(&cwd) {
                    Some(found) => found,
                    None => {
                        return Err(AppError::Hinted {
                            message: "no mcp-pin.toml here (nor .mcp.json, .vscode/mcp.json or .cursor/mcp.json)".into(),
                            hint: "write one (see docs/config.md), run `mcp-pin init` to convert a client config, or lock one server ad hoc: `mcp-pin lock -- CMD ARGS`".into(),
                        })
                    }
                }
            }
        };
        // First every server's name, reading no variable; then only the selected servers resolved.
        let only = if opts.servers.is_empty() && opts.shard.is_none() {
            None
        } else {
            let names = Config::load_unresolved(&path)?.config;
            check_server_names(&names, opts)?;
            Some(pick(names.servers.keys(), opts).into_iter().collect::<std::collections::BTreeSet<String>>())
        };
        let env = |name: &str| std::env::var(name).ok();
        let loaded = Config::load_only(&path, Some(&env), only.as_ref())?;
        if opts.config.is_none() && loaded.format != crate::config::Format::McpPin {
            crate::tell!("using {} ({})", path.display(), loaded.source);
        }
        for w in &loaded.warnings {
            crate::tell!("warning: {w}");
        }
        warn_secrets_in_args(&loaded.config);
        loaded.config
    };
    check_server_names(&config, opts)?;
    let lockfile = opts.lockfile.clone().unwrap_or_else(|| config.dir.join("mcp.lock"));
    Ok((config, lockfile))
}

/// Once per server whose `args` hold a secret: any process on the machine reads a command line.
fn warn_secrets_in_args(config: &Config) {
    for server in config.servers.values() {
        let crate::config::Transport::Stdio(cfg) = &server.transport else { continue };
        let vars = cfg.secrets_in_args();
        if !vars.is_empty() {
            crate::tell!(
                "warning: server `{}`: `args` holds the secret {}: any process on this machine can read a program's command line (`ps`, /proc/PID/cmdline); pass it through `env` instead (docs/config.md)",
                server.name,
                vars.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
            );
        }
    }
}

/// `--server NAME` must name a server of the config (with a did-you-mean).
fn check_server_names(config: &Config, opts: &Options) -> Result<(), AppError> {
    for name in &opts.servers {
        if !config.servers.contains_key(name) {
            let known: Vec<&str> = config.servers.keys().map(String::as_str).collect();
            return Err(AppError::Usage(format!(
                "no server `{name}` in {} (servers there: {}){}",
                config.path.as_deref().map(|p| p.display().to_string()).unwrap_or_else(|| "the config".into()),
                if known.is_empty() { "none".into() } else { known.join(", ") },
                crate::config::hint(name, known.iter().copied()),
            )));
        }
    }
    Ok(())
}

/// The names `--server` and `--shard` select, from every server's name in sorted order.
fn pick<'a>(names: impl IntoIterator<Item = &'a String>, opts: &Options) -> Vec<String> {
    names
        .into_iter()
        .enumerate()
        .filter(|(i, _)| opts.shard.is_none_or(|(k, n)| i % n == k - 1))
        .map(|(_, s)| s)
        .filter(|s| opts.servers.is_empty() || opts.servers.contains(s))
        .cloned()
        .collect()
}

fn selected<'a>(config: &'a Config, opts: &Options) -> Vec<&'a ServerConfig> {
    pick(config.servers.keys(), opts).iter().filter_map(|n| config.servers.get(n)).collect()
}

/// Start the servers that pinned the most tools first (longest job first): a big server started
/// last would finish long after the small ones; started first, it overlaps with them.
fn biggest_first(servers: &mut [&ServerConfig], pinned_tools: impl Fn(&str) -> usize) {
    servers.sort_by_key(|s| std::cmp::Reverse(pinned_tools(&s.name)));
}

/// Progress on stderr while servers are contacted: only on a terminal, never in CI or with -q.
#[derive(Clone)]
pub struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub fn new(enabled: bool) -> Progress {
        if !enabled || !std::io::stderr().is_terminal() || crate::env_vars::in_ci() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {pos}/{len} servers {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress(Some(bar))
    }

    pub fn none() -> Progress {
        Progress(None)
    }

    fn start(&self, total: usize) {
        if let Some(b) = &self.0 {
            b.set_length(total as u64);
        }
    }

    fn done(&self, name: &str) {
        if let Some(b) = &self.0 {
            b.set_message(format!("({name} done)"));
            b.inc(1);
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// The live surface of one server, with every secret masked as it is pinned and compared
/// ([`Live::mask`], the one masking: values and keys; errors are masked of every secret at the
/// sink). A surface with a secret's value in a tool's name is refused: a tool's masked name could
/// not be called, nor told apart from another tool's.
pub async fn take(server: &ServerConfig) -> Result<(Live, Session), String> {
    let plain = |e: crate::client::ClientError| crate::client::plain_error(&e.to_string());
    let session = Session::connect(server).await.map_err(plain)?;
    match session.take_surface().await {
        Ok(surface) => {
            let surface = Live::mask(surface);
            let names = surface.secret_names();
            if let Some(first) = names.first() {
                session.close().await;
                return Err(format!(
                    "{first}{} holds the value of a configured secret; mcp-pin pins a secret's value only masked, and a tool's masked name could not be called nor told apart from another, so it does not pin this surface. If the value is no secret, write it into the config instead of reading it from the environment or a dotenv file",
                    if names.len() > 1 { format!(" (and {} more)", names.len() - 1) } else { String::new() }
                ));
            }
            Ok((surface, session))
        }
        Err(e) => {
            session.close().await;
            Err(plain(e))
        }
    }
}

/// A server as it is connected to for a comparison with its pin (`check`, `review`, and a `lock`
/// that accepts only some tools), and what its new entry records as the client presented.
pub struct AsPinned<'a> {
    pub server: std::borrow::Cow<'a, ServerConfig>,
    /// The `client` a new entry records (`None`: the pin's own, from before identities).
    pub client: Option<String>,
    /// Says how the server was presented, when that is not simply as configured.
    pub note: Option<String>,
}

/// `server` presented as its pin was taken. A lock written before mcp-pin presented itself as
/// the client whose config it read records no `client`: that lock was taken as mcp-pin itself,
/// declaring the capabilities it records, and unless the config now names a `client`, the server
/// is presented the same way, so that an upgrade of mcp-pin reports nothing the new identity alone
/// shows (a note says to run `lock` to pin what the model's client is shown). A pin taken as
/// another client than the configured one is a configuration change, said in a note.
pub fn as_pinned<'a>(server: &'a ServerConfig, pinned: &crate::lockfile::ServerEntry) -> AsPinned<'a> {
    let configured = server.client.info();
    match &pinned.client {
        None if !server.client_set => {
            let mut legacy = server.clone();
            legacy.client = crate::config::Client::McpPin;
            if !legacy.client_capabilities_set {
                legacy.client_capabilities = pinned.client_capabilities.clone();
                legacy.client_capabilities_set = true;
            }
            AsPinned {
                server: std::borrow::Cow::Owned(legacy),
                client: None,
                note: Some(format!(
                    "this server was pinned by an earlier mcp-pin, which presented itself to it as mcp-pin: it is checked the same way, so the upgrade reports nothing new. Run `mcp-pin lock --server {}` to pin what {} is shown (a server may show a gate another surface: docs/security.md, cloaking)",
                    server.name, configured.name
                )),
            }
        }
        Some(key) if key != configured.key => AsPinned {
            server: std::borrow::Cow::Borrowed(server),
            client: Some(configured.key.to_string()),
            note: Some(format!(
                "configuration change: the surface was pinned presenting mcp-pin as `{}` and this run presents it as `{}` (`client`); the surface below is what `{}` is shown. Run `mcp-pin lock --server {}` to accept it",
                crate::json::escape_line(key),
                configured.key,
                configured.key,
                server.name
            )),
        },
        _ => AsPinned { server: std::borrow::Cow::Borrowed(server), client: Some(configured.key.to_string()), note: None },
    }
}

/// Take the lockfile's write lock (waiting, with a line saying so, while another run holds it).
async fn write_guard(path: &Path) -> Result<crate::lockfile::WriteGuard, AppError> {
    let p = path.to_path_buf();
    tokio::task::spawn_blocking(move || {
        crate::lockfile::WriteGuard::acquire(&p, |sidecar| {
            crate::tell!(
                "waiting: another mcp-pin run is updating {} (it holds {}); this run goes on when it has written",
                p.display(),
                sidecar.display()
            )
        })
    })
    .await
    .map_err(|e| AppError::Io(e.to_string()))?
    .map_err(|e| AppError::Io(format!("cannot lock {} for writing: {e}", path.display())))
}

/// Apply the config's `[rules]` and `[[ignore]]` to one server's changes.
fn apply_policy(report: &mut ServerReport, config: &Config, today: &str) {
    let changes = std::mem::take(&mut report.changes);
    let outcome = crate::diff::policy::apply(changes, &report.name, &config.rules, &config.ignores, today);
    record_policy(report, outcome, config);
}

/// Put what policy made of a server's changes into its report: the changes, a note per expired
/// or applied ignore; `[rules]` moves probe rules too.
fn record_policy(report: &mut ServerReport, outcome: crate::diff::policy::PolicyOutcome, config: &Config) {
    report.changes = outcome.changes;
    report.notes.extend(outcome.expired);
    // `[rules]` may move probe rules too.
    for p in &mut report.probes {
        if let Some(cls) = p.rule.and_then(|r| config.rules.get(&r)) {
            p.class = Some(*cls);
        }
    }
    for (c, reason) in outcome.ignored {
        report.notes.push(format!(
            "ignored {} on {} at {} ({reason})",
            c.rule,
            c.tool.as_deref().unwrap_or("the server"),
            c.pointer
        ));
    }
}
