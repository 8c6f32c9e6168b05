//! What each command does, as library functions that return data; [`run`] wires them to the
//! terminal and returns the exit code.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use futures::stream::{self, StreamExt};

use crate::change::Change;
use crate::cli::{Cli, ColorChoice, Command, FailOnArg, ReportAction, ReportArgs};
use crate::client::Session;
use crate::config::{Config, ConfigError, ServerConfig};
use crate::lockfile::{source_of, LockText, Lockfile, LockfileError, PendingEntry, ScannedLock, ServerEntry};
use crate::report::{self, FailOn, Report, ServerReport};
use crate::surface::ServerSurface;

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
}

impl AppError {
    /// What to do about it, shown as a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        match self {
            AppError::Lockfile(LockfileError::Missing { .. }) => {
                Some("run `mcp-pin lock` to pin the servers first, and commit mcp.lock".into())
            }
            AppError::Lockfile(LockfileError::Syntax { .. } | LockfileError::Invalid { .. }) => Some(
                "restore the lockfile from version control, or delete it and run `mcp-pin lock`".into(),
            ),
            AppError::Usage(m) if m.starts_with("no mcp-pin.toml") => Some(
                "write one (see docs/config.md), run `mcp-pin init` to convert a client config, or lock one server ad hoc: `mcp-pin lock -- CMD ARGS`"
                    .into(),
            ),
            AppError::Config(e @ (ConfigError::NotAllowed { .. } | ConfigError::ShortSecret { .. })) => e.hint(),
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            config: None,
            lockfile: None,
            servers: vec![],
            jobs: default_jobs(),
            probe: true,
            shard: None,
            tools: vec![],
        }
    }
}

/// Servers mostly wait (an `npx` start, a remote server, a slow handshake), so the default is
/// sized for waiting, not for cores: every server of a fleet at once, up to 128. What costs is a
/// child process and its memory, bounded separately (`--max-children`,
/// [`crate::client::stdio::DEFAULT_MAX_CHILDREN`]).
pub const DEFAULT_JOBS: usize = 128;

pub fn default_jobs() -> usize {
    DEFAULT_JOBS
}

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
                        return Err(AppError::Usage(
                            "no mcp-pin.toml here (nor .mcp.json, .vscode/mcp.json or .cursor/mcp.json)".into(),
                        ))
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
        loaded.config
    };
    check_server_names(&config, opts)?;
    let lockfile = opts.lockfile.clone().unwrap_or_else(|| config.dir.join("mcp.lock"));
    Ok((config, lockfile))
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

/// The live surface of one server (errors are masked of every secret at the sink).
pub async fn take(server: &ServerConfig) -> Result<(ServerSurface, Session), String> {
    let plain = |e: crate::client::ClientError| crate::client::plain_error(&e.to_string());
    let session = Session::connect(server).await.map_err(plain)?;
    match session.take_surface().await {
        Ok(surface) => Ok((surface, session)),
        Err(e) => {
            session.close().await;
            Err(plain(e))
        }
    }
}

/// What `lock` did for one server.
#[derive(Debug)]
pub struct LockResult {
    pub name: String,
    pub outcome: Result<ServerEntry, String>,
    /// The changes this lock accepts (against the previous entry, if any).
    pub accepted: Vec<Change>,
    pub previous: bool,
}

/// Outcome of `lock`.
#[derive(Debug)]
pub struct LockOutcome {
    pub lockfile: PathBuf,
    pub results: Vec<LockResult>,
    pub written: bool,
    /// Whether a lockfile was there before this run.
    pub existed: bool,
    pub removed: Vec<String>,
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

pub async fn lock(opts: &Options, ad_hoc: &[String], progress: &Progress) -> Result<LockOutcome, AppError> {
    let (config, path) = load_config(opts, ad_hoc)?;
    // Held until the new lock is written: a concurrent `lock` reads what this one wrote.
    let _guard = write_guard(&path).await?;
    let old = match Lockfile::read(&path) {
        Ok(l) => l,
        Err(LockfileError::Missing { .. }) => Lockfile::new(),
        Err(e) => return Err(e.into()),
    };
    let mut servers = selected(&config, opts);
    biggest_first(&mut servers, |name| old.servers.get(name).map_or(0, |e| e.surface.tools.len()));
    progress.start(servers.len());
    let old = &old;
    let mut results: Vec<LockResult> = stream::iter(servers)
        .map(|server| async move {
            let outcome = match take(server).await {
                Ok((surface, session)) => {
                    for w in session.warnings() {
                        crate::tell!("warning: server `{}`: {w}", server.name);
                    }
                    // The probes record each tool's result shape; a failure is shown, not fatal:
                    // the lock pins what the server does today.
                    let probes = if opts.probe {
                        let run = crate::probe::run(&session, server, &surface.tools, None).await;
                        for p in run.probes.iter().filter(|p| p.outcome == report::ProbeOutcome::Fail) {
                            crate::tell!(
                                "warning: server `{}`: probe {} of `{}` failed: {}",
                                server.name,
                                p.rule.as_deref().unwrap_or(""),
                                p.tool,
                                p.message
                            );
                        }
                        crate::tell!("server `{}`: probes: {}", server.name, run.summary());
                        run.shapes
                    } else {
                        // Without probes, keep the shapes pinned before.
                        old.servers.get(&server.name).map(|e| e.probes.clone()).unwrap_or_default()
                    };
                    session.close().await;
                    Ok(ServerEntry {
                        source: source_of(server),
                        client_capabilities: server.client_capabilities.clone(),
                        surface,
                        probes,
                    })
                }
                Err(e) => Err(e),
            };
            progress.done(&server.name);
            (server.name.clone(), outcome)
        })
        .buffer_unordered(opts.jobs.max(1))
        .map(|(name, outcome)| {
            let prev = old.servers.get(&name);
            let accepted = match (&outcome, prev) {
                (Ok(new), Some(prev)) => crate::diff::diff_surfaces(&prev.surface, &new.surface),
                (Ok(new), None) => crate::diff::diff_surfaces(&ServerSurface::default(), &new.surface)
                    .into_iter()
                    .filter(|c| c.tool.is_some())
                    .collect(),
                _ => vec![],
            };
            LockResult { name, outcome, accepted, previous: prev.is_some() }
        })
        .collect()
        .await;
    results.sort_by(|a, b| a.name.cmp(&b.name));
    progress.finish();

    // `--tool`: accept only those tools; everything else stays as pinned. A name that is no tool
    // of any selected server, pinned or live, is a typo: nothing is written.
    if !opts.tools.is_empty() {
        let mut known: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        for r in &results {
            if let Some(prev) = old.servers.get(&r.name) {
                known.extend(prev.surface.tools.keys().map(String::as_str));
            }
            if let Ok(live) = &r.outcome {
                known.extend(live.surface.tools.keys().map(String::as_str));
            }
        }
        let reached = results.iter().any(|r| r.outcome.is_ok());
        if let Some(t) = opts.tools.iter().find(|t| reached && !known.contains(t.as_str())) {
            let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
            return Err(AppError::Usage(format!(
                "no tool `{t}` in server{} {}, pinned or live{}; nothing was written",
                if names.len() == 1 { "" } else { "s" },
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
                crate::config::hint(t, known.iter().copied())
            )));
        }
        for r in &mut results {
            let Ok(live) = &r.outcome else { continue };
            let Some(prev) = old.servers.get(&r.name) else {
                r.outcome = Err(format!(
                    "server `{}` is not in the lockfile yet; lock it whole first: `mcp-pin lock --server {}`",
                    r.name, r.name
                ));
                continue;
            };
            let merged = accept_tools(prev, live, &opts.tools);
            r.accepted = crate::diff::diff_surfaces(&prev.surface, &merged.surface);
            r.outcome = Ok(merged);
        }
    }
    let mut new = (*old).clone();
    new.normalizer_version = crate::lockfile::NORMALIZER_VERSION;
    for r in &results {
        if let Ok(entry) = &r.outcome {
            new.servers.insert(r.name.clone(), entry.clone());
        }
    }
    // A server dropped from the config leaves the lock, but only on a full lock of a real config.
    let mut removed = vec![];
    if opts.servers.is_empty() && opts.shard.is_none() && ad_hoc.is_empty() && opts.tools.is_empty() {
        removed = new.servers.keys().filter(|k| !config.servers.contains_key(*k)).cloned().collect();
        for k in &removed {
            new.servers.remove(k);
        }
    }
    let old_text = std::fs::read_to_string(&path).ok();
    let new_text = new.to_text();
    let written = if old_text.as_deref() != Some(new_text.as_str())
        && (results.iter().any(|r| r.outcome.is_ok()) || !removed.is_empty())
    {
        new.write(&path)?;
        true
    } else {
        false
    };
    Ok(LockOutcome { lockfile: path, results, written, existed: old_text.is_some(), removed })
}

/// Today's date (UTC) as `YYYY-MM-DD`, for ignore expiry. `MCP_PIN_TODAY` overrides it (tests).
pub fn today() -> String {
    if let Some(t) = crate::env_vars::get(crate::env_vars::MCP_PIN_TODAY) {
        return t;
    }
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Apply the config's `[rules]` and `[[ignore]]` to one server's changes.
fn apply_policy(report: &mut ServerReport, config: &Config, today: &str) {
    let changes = std::mem::take(&mut report.changes);
    let outcome = crate::diff::policy::apply(changes, &report.name, &config.rules, &config.ignores, today);
    report.changes = outcome.changes;
    report.notes.extend(outcome.expired);
    // `[rules]` may move probe rules too.
    for p in &mut report.probes {
        if let Some(cls) = p.rule.as_ref().and_then(|r| config.rules.get(r)) {
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

/// The pinned entry with only `tools` taken from the live one (added, changed or removed).
pub fn accept_tools(pinned: &ServerEntry, live: &ServerEntry, tools: &[String]) -> ServerEntry {
    let mut e = pinned.clone();
    for t in tools {
        match live.surface.tools.get(t) {
            Some(v) => {
                e.surface.tools.insert(t.clone(), v.clone());
            }
            None => {
                e.surface.tools.remove(t);
            }
        }
        match live.probes.get(t) {
            Some(v) => {
                e.probes.insert(t.clone(), v.clone());
            }
            None => {
                e.probes.remove(t);
            }
        }
    }
    e
}

/// The pinned entry with the server-level facts (info, instructions, capabilities, protocol,
/// how it is reached) taken from the live one.
pub fn accept_server_level(pinned: &ServerEntry, live: &ServerEntry) -> ServerEntry {
    let mut e = pinned.clone();
    e.source = live.source.clone();
    e.client_capabilities = live.client_capabilities.clone();
    e.surface.protocol_version = live.surface.protocol_version.clone();
    e.surface.server_info = live.surface.server_info.clone();
    e.surface.instructions = live.surface.instructions.clone();
    e.surface.capabilities = live.surface.capabilities.clone();
    e
}

/// What `review` asks about: one tool's pending changes, or a server's server-level ones.
fn review_item(tool: &Option<String>) -> String {
    match tool {
        Some(t) => format!("tool `{}`", crate::json::escape_line(t)),
        None => "the server-level changes".into(),
    }
}

/// The answers `review` takes, as its `?` prints them.
const REVIEW_HELP: &str = "  y  accept: the lock takes the live definition (written when the review ends)
  n  reject: the lock keeps the pinned definition, and review does not ask again while the live one stays as it is
  s  skip: decide later; the next review asks again
  a  accept this and every remaining item
  q  quit: ask nothing more; what was accepted so far is written
  ?  this help
";

/// The rejections `review` remembers: per server, per item (`tool NAME` or `server`), a digest
/// of the live definition that was rejected. Kept beside the lockfile (`.mcp.lock.rejected`),
/// local to the one who reviewed; deleting it makes review ask again.
#[derive(Debug, Default)]
struct Rejections {
    path: PathBuf,
    entries: BTreeMap<String, BTreeMap<String, String>>,
}

impl Rejections {
    fn path_for(lockfile: &Path) -> PathBuf {
        let name = lockfile.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "mcp.lock".into());
        lockfile.with_file_name(format!(".{name}.rejected"))
    }

    fn read(lockfile: &Path) -> Rejections {
        let path = Self::path_for(lockfile);
        let entries = crate::lockfile::read_regular(&path, 16 << 20)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("rejected").cloned())
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        Rejections { path, entries }
    }

    fn key(tool: &Option<String>) -> String {
        match tool {
            Some(t) => format!("tool {t}"),
            None => "server".into(),
        }
    }

    fn is_rejected(&self, server: &str, tool: &Option<String>, digest: &str) -> bool {
        self.entries.get(server).and_then(|m| m.get(&Self::key(tool))).is_some_and(|d| d == digest)
    }

    fn set(&mut self, server: &str, tool: &Option<String>, digest: Option<String>) {
        let m = self.entries.entry(server.to_string()).or_default();
        match digest {
            Some(d) => {
                m.insert(Self::key(tool), d);
            }
            None => {
                m.remove(&Self::key(tool));
            }
        }
        if m.is_empty() {
            self.entries.remove(server);
        }
    }

    fn write(&self) -> std::io::Result<()> {
        if self.entries.is_empty() {
            return match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        let v = serde_json::json!({
            "about": "mcp-pin review: live definitions rejected here (digests); delete this file to be asked again",
            "rejected": self.entries,
        });
        crate::sink::write_file(&self.path, &crate::json::to_canonical_string(&v))
    }
}

/// A digest of what accepting an item would take from the live entry (FNV-1a over canonical JSON).
fn live_digest(live: &ServerEntry, tool: &Option<String>) -> String {
    let v = match tool {
        Some(t) => serde_json::json!({ "tool": live.surface.tools.get(t) }),
        None => serde_json::json!({
            "protocolVersion": live.surface.protocol_version,
            "serverInfo": live.surface.server_info,
            "instructions": live.surface.instructions,
            "capabilities": live.surface.capabilities,
        }),
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in crate::json::to_canonical_string(&v).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A rendered human report without its verdict line (whatever colour codes lead it).
fn without_verdict(rendered: &str) -> String {
    rendered.lines().filter(|l| !is_verdict_line(l)).map(|l| format!("{l}\n")).collect()
}

/// Whether a line of the human report is its `PASS:` / `FAIL:` verdict, coloured or not.
fn is_verdict_line(line: &str) -> bool {
    let plain = strip_ansi(line);
    plain.starts_with("PASS:") || plain.starts_with("FAIL:")
}

/// `s` without ANSI escape sequences (`ESC [ ... letter`).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `mcp-pin review`: for each server, the pending changes grouped by tool, judged as `check`
/// judges them (`[rules]` classes, `[[ignore]]` entries); the user accepts, rejects or skips each
/// item; only what was accepted is written, and a summary says what. Never waits for input in CI.
pub async fn review(opts: &Options, style: &report::human::Style) -> Result<i32, AppError> {
    use std::io::{BufRead, Write};
    if crate::env_vars::in_ci() {
        return Err(AppError::Usage(
            "`mcp-pin review` is interactive and CI is set; in CI use `mcp-pin check`, and accept drift with `mcp-pin lock` (or `lock --tool NAME`)".into(),
        ));
    }
    let (config, path) = load_config(opts, &[])?;
    let _guard = write_guard(&path).await?;
    let pinned = Lockfile::read(&path)?;
    let mut rejections = Rejections::read(&path);
    let mut new = pinned.clone();
    let mut accept_all = false;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let (mut accepted, mut rejected, mut skipped, mut remembered): (Vec<String>, Vec<String>, Vec<String>, usize) =
        (vec![], vec![], vec![], 0);
    let mut quit = false;
    let mut code = 0;
    let today = today();
    'servers: for server in selected(&config, opts) {
        let Some(prev) = pinned.servers.get(&server.name) else {
            crate::tell!("{}: not in the lockfile; `mcp-pin lock --server {}` pins it", server.name, server.name);
            continue;
        };
        let (surface, session) = match take(server).await {
            Ok(x) => x,
            Err(e) => {
                crate::tell!("error: server `{}`: {e}", server.name);
                code = 2;
                continue;
            }
        };
        let shapes = if opts.probe {
            crate::probe::run(&session, server, &surface.tools, None).await.shapes
        } else {
            prev.probes.clone()
        };
        session.close().await;
        let live = ServerEntry {
            source: source_of(server),
            client_capabilities: server.client_capabilities.clone(),
            surface,
            probes: shapes,
        };
        // Judged exactly as `check` judges: `[rules]` moves classes, `[[ignore]]` removes changes.
        let mut judged = ServerReport {
            changes: crate::diff::diff_surfaces(&prev.surface, &live.surface),
            ..ServerReport::ok(&server.name)
        };
        crate::diff::every_tool_gone(&mut judged.changes, prev.surface.tools.len(), live.surface.tools.len());
        apply_policy(&mut judged, &config, &today);
        for note in &judged.notes {
            crate::tell!("{}: note: {note}", server.name);
        }
        let mut groups: BTreeMap<Option<String>, Vec<Change>> = BTreeMap::new();
        for c in judged.changes {
            groups.entry(c.tool.clone()).or_default().push(c);
        }
        if groups.is_empty() {
            crate::tell!("{}: no pending changes", server.name);
            continue;
        }
        for (tool, changes) in groups {
            let what = review_item(&tool);
            let label = format!("{what} of {}", server.name);
            let digest = live_digest(&live, &tool);
            if rejections.is_rejected(&server.name, &tool, &digest) {
                crate::tell!(
                    "{label}: rejected on an earlier review, and the live definition is the same: not asked again"
                );
                remembered += 1;
                continue;
            }
            let sub = Report {
                fail_on: FailOn::Never,
                servers: vec![ServerReport { changes: changes.clone(), ..ServerReport::ok(&server.name) }],
            };
            let body = without_verdict(&report::human::render(&sub, &report::human::Style { verbose: true, ..*style }));
            crate::tell_raw!("{body}");
            let answer = loop {
                if accept_all {
                    break "y".to_string();
                }
                crate::tell_raw!("accept {label}? [y]es [n]o (reject) [s]kip [a]ll [q]uit [?]help: ");
                let _ = std::io::stderr().flush();
                let a = match lines.next() {
                    Some(Ok(l)) => l.trim().to_lowercase(),
                    // End of input: nothing more will be answered.
                    _ => {
                        crate::tell!("");
                        "q".into()
                    }
                };
                match a.as_str() {
                    "y" | "yes" | "n" | "no" | "s" | "skip" | "q" | "quit" => break a,
                    "a" | "all" => {
                        accept_all = true;
                        break "y".into();
                    }
                    "?" | "h" | "help" => crate::tell_raw!("{REVIEW_HELP}"),
                    other => crate::tell!(
                        "  `{}` is not an answer: y, n, s, a or q (? explains them)",
                        crate::json::escape_line(other)
                    ),
                }
            };
            match answer.as_str() {
                "y" | "yes" => {
                    let cur = new.servers.get(&server.name).cloned().unwrap_or_else(|| prev.clone());
                    let merged = match &tool {
                        Some(t) => accept_tools(&cur, &live, std::slice::from_ref(t)),
                        None => accept_server_level(&cur, &live),
                    };
                    new.servers.insert(server.name.clone(), merged);
                    rejections.set(&server.name, &tool, None);
                    accepted.push(label);
                    crate::tell!("  accepted");
                }
                "n" | "no" => {
                    rejections.set(&server.name, &tool, Some(digest));
                    rejected.push(label);
                    crate::tell!(
                        "  rejected: the lock keeps the pinned definition; review will not ask again while the live one stays as it is"
                    );
                }
                "s" | "skip" => {
                    skipped.push(label);
                    crate::tell!("  skipped: the next review asks again");
                }
                _ => {
                    quit = true;
                    break 'servers;
                }
            }
        }
    }
    // The summary: what was written, and what was not.
    if quit {
        crate::tell!("quit: nothing more asked");
    }
    let list = |v: &[String]| v.join(", ");
    if !accepted.is_empty() {
        new.write(&path)?;
        crate::tell!("wrote {}: accepted {} ({})", path.display(), accepted.len(), list(&accepted));
    } else {
        crate::tell!("nothing accepted; {} unchanged", path.display());
    }
    if !rejected.is_empty() {
        crate::tell!("rejected {} ({}): the lock keeps the pinned definitions", rejected.len(), list(&rejected));
    }
    if !skipped.is_empty() {
        crate::tell!("skipped {} ({}): asked again next time", skipped.len(), list(&skipped));
    }
    if remembered > 0 {
        crate::tell!(
            "{remembered} rejected before and not asked again (delete {} to be asked again)",
            rejections.path.display()
        );
    }
    if let Err(e) = rejections.write() {
        crate::tell!("warning: cannot record rejections in {}: {e}", rejections.path.display());
    }
    if !accepted.is_empty() || !rejected.is_empty() {
        crate::tell!(
            "review the lockfile diff (`git diff {}`) and commit it",
            path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
        );
    }
    Ok(code)
}

/// Diff one server's live surface against its lock entry.
async fn check_server(
    server: &ServerConfig,
    entry: Option<PendingEntry>,
    lockfile: &Path,
    probe: bool,
) -> ServerReport {
    let Some(pending) = entry else {
        return ServerReport::error(
            &server.name,
            format!(
                "server `{}` is in the config but not in {}; run `mcp-pin lock --server {}` and commit the lockfile",
                server.name,
                lockfile.display(),
                server.name
            ),
        );
    };
    let (mut surface, session) = match take(server).await {
        Ok(x) => x,
        Err(e) => return ServerReport::error(&server.name, e),
    };
    let mut report = ServerReport::ok(&server.name);
    report.notes.extend(session.warnings());
    if probe {
        let run = crate::probe::run(&session, server, &surface.tools, Some(&pending.entry.probes)).await;
        report.probe_summary = Some(run.summary());
        report.probes = run.probes;
    }
    session.close().await;
    let (pinned_tools, live_tools) = (pending.tools.len(), surface.tools.len());
    let entry = match pending.resolve(&mut surface) {
        Ok(e) => e,
        Err(e) => return ServerReport::error(&server.name, e.to_string()),
    };
    // tools/list may vary with the request's authorization (2026-07-28): the lock records which
    // credential names (header or env names, never values) produced the pinned surface.
    let names = |source: &serde_json::Value| -> Vec<String> {
        ["headers", "env"]
            .iter()
            .flat_map(|k| source.get(*k).and_then(|v| v.as_array()).cloned().unwrap_or_default())
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let (pinned_names, live_names) = (names(&entry.source), names(&source_of(server)));
    if pinned_names != live_names {
        let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
        report.notes.push(format!(
            "credentials differ: the surface was pinned with [{}] and this check sends [{}] (names only); a server may list other tools for other credentials, so changes below may come from the credentials, not the server. Run `mcp-pin lock --server {}` once the credentials are as intended",
            list(&pinned_names),
            list(&live_names),
            server.name
        ));
    }
    if entry.client_capabilities != server.client_capabilities {
        report.notes.push(format!(
            "configuration change: client capabilities were [{}] when locked and are [{}] now; the surface below is what the new capabilities show. Run `mcp-pin lock --server {}` to accept it",
            entry.client_capabilities.join(", "),
            server.client_capabilities.join(", "),
            server.name
        ));
    }
    report.changes = crate::diff::diff_surfaces_partial(&entry.surface, &surface);
    crate::diff::every_tool_gone(&mut report.changes, pinned_tools, live_tools);
    if let Some(note) = other_server_note(&entry.surface, &surface) {
        report.notes.insert(0, note);
    }
    report
}

/// When the live server calls itself by another `serverInfo.name` than the pinned one, the
/// lockfile may be from another project or the config may reach another server: that leads the
/// report, whatever class `server-info-changed` has.
fn other_server_note(pinned: &ServerSurface, live: &ServerSurface) -> Option<String> {
    let name = |s: &ServerSurface| s.server_info.get("name").and_then(serde_json::Value::as_str).map(str::to_string);
    match (name(pinned), name(live)) {
        (Some(a), Some(b)) if a != b => Some(format!(
            "another server? the pinned server is named \"{}\" and the live one \"{}\" (serverInfo.name): check that the lockfile belongs to this project and the config reaches the intended server",
            crate::json::escape_line(&a),
            crate::json::escape_line(&b)
        )),
        _ => None,
    }
}

pub async fn check(
    opts: &Options,
    fail_on: FailOn,
    ad_hoc: &[String],
    progress: &Progress,
) -> Result<(Report, PathBuf), AppError> {
    let (config, path) = load_config(opts, ad_hoc)?;
    let mut servers = selected(&config, opts);
    let wanted: std::collections::BTreeSet<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    // Only the selected servers' entries are taken from the lock (`--server` / `--shard` on a big
    // lock stays fast), their tools still text: each is resolved against its live surface in its
    // own task, and a tool whose text is unchanged is never parsed.
    let (mut pending, gone) = {
        let text = LockText::read(&path)?;
        let scanned = ScannedLock::scan(text.as_str(), &path)?;
        let gone: Vec<String> = scanned.server_names().filter(|n| !config.servers.contains_key(*n)).cloned().collect();
        (scanned.pending(&|server| wanted.contains(server))?, gone)
    };
    biggest_first(&mut servers, |name| pending.get(name).map_or(0, |e| e.tools.len()));
    progress.start(servers.len());
    let today = today();
    let (config_ref, today_ref, probe) = (&config, today.as_str(), opts.probe);
    // Each server is checked in its own task, so parsing and diffing big surfaces runs on every
    // core rather than inside one task that polls them all; at most `--jobs` at a time.
    let mut reports: Vec<ServerReport> = stream::iter(servers)
        .map(|server| {
            let (entry, path, server) = (pending.remove(&server.name), path.clone(), server.clone());
            async move {
                let name = server.name.clone();
                let task = tokio::spawn(async move { check_server(&server, entry, &path, probe).await });
                let mut r = task.await.unwrap_or_else(|e| {
                    ServerReport::error(&name, format!("checking `{name}` failed inside mcp-pin: {e}"))
                });
                apply_policy(&mut r, config_ref, today_ref);
                progress.done(&name);
                r
            }
        })
        .buffer_unordered(opts.jobs.max(1))
        .collect()
        .await;
    // A server still pinned but gone from the config is worth a line (not an error).
    if opts.servers.is_empty() && opts.shard.is_none() && ad_hoc.is_empty() {
        for name in &gone {
            let mut r = ServerReport::ok(name);
            r.notes.push(format!(
                "`{name}` is in {} but no longer in the config; `mcp-pin lock` drops it",
                path.display()
            ));
            reports.push(r);
        }
    }
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    progress.finish();
    Ok((Report { fail_on, servers: reports }, path))
}

/// `mcp-pin diff OLD NEW`: the same engine, offline.
pub fn diff_locks(old: &Path, new: &Path, fail_on: FailOn) -> Result<Report, AppError> {
    // The two locks are read and scanned on two threads. A tool whose text is the same in both
    // locks cannot differ: it is not even built into a tree. Only changed, added and removed
    // tools reach the diff (renames pair removed with added ones).
    let (old_text, new_text) = std::thread::scope(|s| {
        let o = s.spawn(|| LockText::read(old));
        let n = LockText::read(new);
        (o.join().expect("reading a lockfile panicked"), n)
    });
    let (old_text, new_text) = (old_text?, new_text?);
    let (old_text, new_text) = (old_text.as_str(), new_text.as_str());
    let (old_scan, new_scan) = std::thread::scope(|s| {
        let o = s.spawn(|| ScannedLock::scan(old_text, old));
        let n = ScannedLock::scan(new_text, new);
        (o.join().expect("scanning a lockfile panicked"), n)
    });
    let (old_scan, new_scan) = (old_scan?, new_scan?);
    let old = old_scan.build(&|s, t, raw| new_scan.tool_text(s, t) != Some(raw))?;
    let new = new_scan.build(&|s, t, raw| old_scan.tool_text(s, t) != Some(raw))?;
    let names: std::collections::BTreeSet<&String> = old.servers.keys().chain(new.servers.keys()).collect();
    let empty = ServerEntry::default();
    let servers = names
        .into_iter()
        .map(|name| {
            let mut r = ServerReport::ok(name);
            let (o, n) = (old.servers.get(name), new.servers.get(name));
            match (o, n) {
                (None, Some(_)) => r.notes.push("server added to the lockfile".into()),
                (Some(_), None) => r.notes.push("server removed from the lockfile".into()),
                _ => {}
            }
            r.changes = crate::diff::diff_surfaces_partial(&o.unwrap_or(&empty).surface, &n.unwrap_or(&empty).surface);
            if o.is_some() && n.is_some() {
                crate::diff::every_tool_gone(&mut r.changes, old_scan.tool_count(name), new_scan.tool_count(name));
            }
            r
        })
        .collect();
    Ok(Report { fail_on, servers })
}

/// On SIGINT or SIGTERM: end every server mcp-pin started (they lead their own process groups,
/// so a terminal's Ctrl-C does not reach them), then exit with the usual code (128 + signal).
pub fn on_signal() {
    #[cfg(unix)]
    tokio::spawn(async {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term)) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) else {
            return;
        };
        let code = tokio::select! {
            _ = int.recv() => 130,
            _ = term.recv() => 143,
        };
        crate::client::stdio::running::end_all();
        crate::tell!("mcp-pin: stopped by a signal; every server it started was ended");
        std::process::exit(code);
    });
}

fn fail_on(arg: FailOnArg) -> FailOn {
    match arg {
        FailOnArg::Silent => FailOn::Silent,
        FailOnArg::Loud => FailOn::Loud,
        FailOnArg::Never => FailOn::Never,
    }
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => std::io::stdout().is_terminal() && std::env::var_os(crate::env_vars::NO_COLOR).is_none(),
    }
}

fn print_error(e: &AppError) {
    crate::tell!("error: {e}");
    if let Some(h) = e.hint() {
        crate::tell!("hint: {h}");
    }
}

/// Render and emit a report per the report arguments; returns the exit code.
fn emit(report: &Report, args: &ReportArgs, ctx: &report::RenderContext, quiet: bool) -> i32 {
    let format = args.format.unwrap_or(report::Format::Human);
    let files = args.output.iter().map(|p| (format, p.clone())).chain(args.reports.iter().cloned());
    for (f, path) in files {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = crate::sink::write_file(&path, &report::render(report, f, ctx)) {
            crate::tell!("error: cannot write report {}: {e}", path.display());
            return 2;
        }
    }
    if crate::env_vars::get(crate::env_vars::GITHUB_ACTIONS).as_deref() == Some("true") && !args.no_step_summary {
        if let Err(e) = report::step_summary_append(report, ctx) {
            crate::tell!("warning: cannot append to $GITHUB_STEP_SUMMARY: {e}");
        }
    }
    if args.output.is_some() || format == report::Format::Human {
        print_out(&quiet_filter(&report::render(report, report::Format::Human, ctx), quiet));
    } else {
        crate::sink::print_report(&report::render(report, format, ctx));
    }
    report.exit_code()
}

fn quiet_filter(human: &str, quiet: bool) -> String {
    if !quiet {
        return human.to_string();
    }
    human.lines().filter(|l| is_verdict_line(l) || strip_ansi(l).contains("error:")).map(|l| format!("{l}\n")).collect()
}

/// Print to stdout through the sink (masked, terminal-safe); a closed pipe is not an error.
fn print_out(s: &str) {
    crate::sink::print_out(s);
}

/// Run a parsed command line; returns the process exit code.
pub async fn run(cli: Cli) -> i32 {
    let g = &cli.global;
    on_signal();
    crate::secrets::set_policy(crate::secrets::EnvPolicy::for_run(
        crate::env_vars::in_ci(),
        g.allow_env.iter().map(|v| v.trim().to_string()).filter(|v| !v.is_empty()),
    ));
    let style = report::human::Style { color: use_color(g.color), verbose: g.verbose };
    let mut opts = Options { config: g.config.clone(), lockfile: g.lockfile.clone(), ..Options::default() };
    let select = |opts: &mut Options, s: &crate::cli::Selection| {
        opts.servers = s.servers.clone();
        opts.shard = s.shard;
        opts.jobs = s.jobs.map_or_else(default_jobs, usize::from);
        if let Some(n) = s.max_children {
            crate::client::stdio::set_max_children(usize::from(n));
        }
    };
    match &cli.command {
        Command::Lock { select: sel, no_probe, command, tools } => {
            select(&mut opts, sel);
            opts.probe = !no_probe;
            opts.tools = tools.clone();
            let progress = Progress::new(!g.quiet);
            match lock(&opts, command, &progress).await {
                Ok(outcome) => print_lock(&outcome, &style, g.quiet),
                Err(e) => {
                    print_error(&e);
                    2
                }
            }
        }
        Command::Check { select: sel, report: args, no_probe, command } => {
            select(&mut opts, sel);
            opts.probe = !no_probe;
            let progress = Progress::new(!g.quiet);
            match check(&opts, fail_on(args.fail_on), command, &progress).await {
                Ok((report, lockfile)) => {
                    let ctx = report::RenderContext::for_lockfile(style, &lockfile);
                    emit(&report, args, &ctx, g.quiet)
                }
                Err(e) => {
                    print_error(&e);
                    2
                }
            }
        }
        Command::Diff { old, new, report: args } => match diff_locks(old, new, fail_on(args.fail_on)) {
            Ok(report) => {
                let ctx = report::RenderContext::for_lockfile(style, new);
                emit(&report, args, &ctx, g.quiet)
            }
            Err(AppError::Lockfile(e @ LockfileError::Missing { .. })) => {
                // `diff` reads two files offline; locking would not make this one appear.
                crate::tell!("error: {e}");
                crate::tell!(
                    "hint: `mcp-pin diff OLD NEW` compares two lockfiles that exist; for the committed one, e.g. `git show HEAD:mcp.lock > old.lock && mcp-pin diff old.lock mcp.lock`"
                );
                2
            }
            Err(e) => {
                print_error(&e);
                2
            }
        },
        Command::Explain { rule } => explain(rule.as_deref()),
        Command::Init { from, force } => init(from.as_deref(), *force),
        Command::Review { select: sel, no_probe } => {
            select(&mut opts, sel);
            opts.probe = !no_probe;
            match review(&opts, &style).await {
                Ok(code) => code,
                Err(e) => {
                    print_error(&e);
                    2
                }
            }
        }
        Command::Report { action: ReportAction::Merge { files, report: args } } => {
            let mut values = vec![];
            for f in files {
                match std::fs::read_to_string(f)
                    .map_err(|e| e.to_string())
                    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).map_err(|e| e.to_string()))
                {
                    Ok(v) => values.push(v),
                    Err(e) => {
                        crate::tell!("error: cannot read report {}: {e}", f.display());
                        return 2;
                    }
                }
            }
            // --fail-on is taken from the command line only when given explicitly (not default).
            let explicit = std::env::args().any(|a| a.starts_with("--fail-on"));
            match report::merge_json(&values, explicit.then(|| fail_on(args.fail_on))) {
                Ok(merged) => {
                    let lock = opts.lockfile.clone().unwrap_or_else(|| PathBuf::from("mcp.lock"));
                    let ctx = report::RenderContext::for_lockfile(style, &lock);
                    emit(&merged, args, &ctx, g.quiet)
                }
                Err(e) => {
                    crate::tell!("error: {e}");
                    2
                }
            }
        }
        Command::Completions { shell } => {
            // Our own script, no foreign text: written as generated.
            crate::sink::print_out(&crate::cli::completion_script(*shell));
            0
        }
        Command::ConformanceClient { url } => conformance_client(url).await,
    }
}

fn explain(rule: Option<&str>) -> i32 {
    match rule {
        None => {
            let mut s = String::new();
            for r in crate::rules::RULES {
                s.push_str(&format!("{:<30} {:<9} {}\n", r.id, r.class.as_str(), r.summary));
            }
            print_out(&s);
            0
        }
        Some(id) => match crate::rules::explain(id) {
            Some(text) => {
                print_out(&text);
                if !text.ends_with('\n') {
                    print_out("\n");
                }
                0
            }
            None => {
                crate::tell!(
                    "error: no rule `{id}`{}",
                    crate::config::hint(id, crate::rules::RULES.iter().map(|r| r.id))
                );
                crate::tell!("hint: `mcp-pin explain` lists every rule");
                2
            }
        },
    }
}

fn print_lock(outcome: &LockOutcome, style: &report::human::Style, quiet: bool) -> i32 {
    let mut code = 0;
    let mut out = String::new();
    for r in &outcome.results {
        match &r.outcome {
            Ok(entry) => {
                let accepted: Vec<&Change> = r.accepted.iter().collect();
                if !quiet {
                    let verb = if r.previous { "updated" } else { "pinned" };
                    out.push_str(&format!(
                        "{verb} {} ({} tools, protocol {})\n",
                        r.name,
                        entry.surface.tools.len(),
                        entry.surface.protocol_version
                    ));
                    if style.verbose {
                        // Each tool's digest, as the lock records it (SHA-256 over RFC 8785 JSON).
                        for (tool, digest) in crate::digest::digests(&entry.surface.tools) {
                            out.push_str(&format!("  digest {digest}  {}\n", crate::json::escape_line(&tool)));
                        }
                    }
                    if r.previous {
                        if accepted.is_empty() {
                            out.push_str("  no change\n");
                        }
                        let sub = Report {
                            fail_on: FailOn::Never,
                            servers: vec![ServerReport { changes: r.accepted.clone(), ..ServerReport::ok(&r.name) }],
                        };
                        if !accepted.is_empty() {
                            out.push_str("  accepting:\n");
                            for line in without_verdict(&report::human::render(&sub, style)).lines().skip(1) {
                                out.push_str(&format!("  {line}\n"));
                            }
                        }
                    }
                }
            }
            Err(e) => {
                code = 2;
                crate::tell!("error: server `{}`: {}", r.name, e);
                if r.previous {
                    crate::tell!("hint: its previous entry in {} is kept untouched", outcome.lockfile.display());
                }
            }
        }
    }
    for name in &outcome.removed {
        out.push_str(&format!("removed {name} (no longer in the config)\n"));
    }
    if !quiet {
        let line = match (outcome.written, outcome.existed) {
            (true, _) => format!("wrote {}", outcome.lockfile.display()),
            (false, true) => format!("unchanged: {}", outcome.lockfile.display()),
            (false, false) => {
                format!("not written: no server could be pinned, so there is no {}", outcome.lockfile.display())
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    print_out(&out);
    code
}

/// The conformance suite plays the server and runs this with its URL: take the surface the way
/// `lock` does and call every tool the way the probes do. The suite's own checks judge the result.
async fn conformance_client(url: &str) -> i32 {
    let mut server = ServerConfig::with_defaults(
        "conformance",
        crate::config::Transport::Http(crate::config::Http {
            url: url.to_string(),
            url_template: url.to_string(),
            headers: BTreeMap::new(),
            allow_redirects: vec![],
            // The suite hands credentials to its client in MCP_CONFORMANCE_CONTEXT.
            oauth: conformance_oauth(),
        }),
    );
    server.timeout = std::time::Duration::from_secs(20);
    server.probe = crate::config::ProbePolicy::All;
    match take(&server).await {
        Ok((surface, session)) => {
            crate::tell!("conformance: protocol {}, {} tools", surface.protocol_version, surface.tools.len());
            conformance_probe(&session, &server, &surface).await;
            // Schema preservation (after the probes, whose synthesised call would overwrite it):
            // echo the focal tool's inputSchema, exactly as pinned, back to
            // the suite, which compares it with what it sent.
            if let (Some(echo), Some(focal)) =
                (surface.tools.get("json_schema_echo"), surface.tools.get("json_schema_2020_12_tool"))
            {
                let _ = echo;
                let mut args = serde_json::Map::new();
                args.insert("schema".into(), focal["inputSchema"].clone());
                let r = session.call_tool("json_schema_echo", args, server.timeout).await;
                crate::tell!("conformance: json_schema_echo: {}", if r.is_ok() { "sent" } else { "failed" });
            }
            session.close().await;
            0
        }
        Err(e) => {
            crate::tell!("conformance: {e}");
            1
        }
    }
}

/// `mcp-pin init`: write a commented mcp-pin.toml from a client config found here.
fn init(from: Option<&Path>, force: bool) -> i32 {
    let cwd = match std::env::current_dir() {
        Ok(c) => c,
        Err(e) => {
            crate::tell!("error: {e}");
            return 2;
        }
    };
    let source = match from {
        Some(p) => p.to_path_buf(),
        None => {
            match crate::config::clients::DISCOVER_ORDER.iter().skip(1).map(|f| cwd.join(f)).find(|p| p.is_file()) {
                Some(p) => p,
                None => {
                    crate::tell!("error: no client config here (.mcp.json, .vscode/mcp.json, .cursor/mcp.json)");
                    crate::tell!("hint: pass one with `mcp-pin init --from PATH` (e.g. claude_desktop_config.json)");
                    return 2;
                }
            }
        }
    };
    let target = cwd.join("mcp-pin.toml");
    if target.exists() && !force {
        crate::tell!("error: {} exists", target.display());
        crate::tell!("hint: `mcp-pin init --force` overwrites it");
        return 2;
    }
    let loaded = match Config::load_unresolved(&source) {
        Ok(l) => l,
        Err(e) => {
            crate::tell!("error: {e}");
            return 2;
        }
    };
    let text = crate::config::init::init_toml_from(&loaded, &source);
    if let Err(e) = crate::sink::write_file(&target, &text) {
        crate::tell!("error: cannot write {}: {e}", target.display());
        return 2;
    }
    for w in &loaded.warnings {
        crate::tell!("warning: {w}");
    }
    crate::tell!(
        "wrote {} from {} ({}, {} server{}); next: `mcp-pin lock`",
        target.display(),
        source.display(),
        loaded.source,
        loaded.config.servers.len(),
        if loaded.config.servers.len() == 1 { "" } else { "s" }
    );
    0
}

/// The OAuth settings the conformance suite's context asks for, if any.
fn conformance_oauth() -> Option<crate::config::OAuth> {
    crate::conformance::oauth_from_context()
}

/// The probes, as `check` runs them, for the conformance adapter.
async fn conformance_probe(session: &Session, server: &ServerConfig, surface: &ServerSurface) {
    let run = crate::probe::run(session, server, &surface.tools, None).await;
    for p in &run.probes {
        crate::tell!("conformance: probe {:?} {} {:?}: {}", p.kind, p.tool, p.outcome, p.message);
    }
    // Header-mapped string arguments once more with a value that is not plain ASCII, so the
    // value encoding of x-mcp-header (2026-07-28) is exercised as well as the plain case.
    for (name, def) in &surface.tools {
        if crate::probe::header_mapping_problem(def).is_some() {
            continue;
        }
        let Some(props) = def.pointer("/inputSchema/properties").and_then(serde_json::Value::as_object) else {
            continue;
        };
        let mapped: Vec<&String> = props
            .iter()
            .filter(|(_, s)| {
                s.get("x-mcp-header").is_some() && s.get("type").and_then(|t| t.as_str()) == Some("string")
            })
            .map(|(k, _)| k)
            .collect();
        if mapped.is_empty() {
            continue;
        }
        let Ok(mut args) = crate::probe::synthesize_args(&def["inputSchema"]) else { continue };
        for k in mapped {
            args.insert(k.clone(), serde_json::Value::String("Grüße, 世界 ✓".into()));
        }
        let r = session.call_tool(name, args, server.timeout).await;
        crate::tell!("conformance: {name} with non-ASCII header values: {}", if r.is_ok() { "sent" } else { "failed" });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn today_matches_the_system_calendar() {
        let out = std::process::Command::new("date").args(["-u", "+%Y-%m-%d"]).output();
        if let Ok(out) = out {
            let expected = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if std::env::var_os("MCP_PIN_TODAY").is_none() && expected.len() == 10 {
                assert_eq!(super::today(), expected);
            }
        }
    }
}
