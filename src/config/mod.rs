//! `mcp-pin.toml`: which servers to pin, how to reach them, and policy.
//!
//! Interface used by the rest of the crate. Values are resolved (`${VAR}` expanded) at load;
//! the `*_template` fields keep what the user wrote, which is what the lockfile may record.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::change::Class;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot read config file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("config file {path}: server `{server}`: environment variable `{var}` is not set (used as ${{{var}}}); export it or remove it from the config")]
    MissingVar { path: PathBuf, server: String, var: String },
}

/// The whole configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file it was read from (None for an ad-hoc `lock -- CMD` run).
    pub path: Option<PathBuf>,
    /// Base folder: relative `cwd`, commands and the default lockfile are resolved from here.
    pub dir: PathBuf,
    /// Servers by name (sorted).
    pub servers: BTreeMap<String, ServerConfig>,
    /// `[rules]`: rule id -> class override.
    pub rules: BTreeMap<String, Class>,
    /// `[[ignore]]` entries.
    pub ignores: Vec<Ignore>,
}

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Client capabilities to declare (`roots`, `sampling`, `elicitation`), sorted, deduplicated.
    pub client_capabilities: Vec<String>,
    /// Probe policy for this server's tools (issue: probes).
    pub probe: ProbePolicy,
    /// Per-tool settings (`[servers.NAME.tools.TOOL]`).
    pub tools: BTreeMap<String, ToolConfig>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProbePolicy {
    #[default]
    ReadOnly,
    All,
    None,
}

#[derive(Debug, Clone, Default)]
pub struct ToolConfig {
    /// Arguments fixture for the valid probe call.
    pub args: Option<serde_json::Value>,
    /// Per-tool probe policy override.
    pub probe: Option<ProbePolicy>,
}

#[derive(Debug, Clone)]
pub enum Transport {
    Stdio(Stdio),
    Http(Http),
}

#[derive(Debug, Clone)]
pub struct Stdio {
    /// Command as resolved (a relative path containing `/` is resolved against `Config::dir`).
    pub command: String,
    /// Command as written.
    pub command_template: String,
    /// Arguments with `${VAR}` expanded.
    pub args: Vec<String>,
    /// Arguments as written (what the lockfile records).
    pub args_template: Vec<String>,
    /// Environment for the child, values expanded. Secret: never logged or locked.
    pub env: BTreeMap<String, String>,
    /// Working folder (resolved against `Config::dir`).
    pub cwd: Option<PathBuf>,
    /// `cwd` as written.
    pub cwd_template: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Http {
    /// URL with `${VAR}` expanded. May hold a secret (userinfo, `?token=`).
    pub url: String,
    /// URL as written.
    pub url_template: String,
    /// Headers with values expanded. Secret: never logged or locked.
    pub headers: BTreeMap<String, String>,
}

#[derive(Debug, Clone)]
pub struct Ignore {
    pub rule: String,
    pub server: Option<String>,
    pub tool: Option<String>,
    /// JSON pointer prefix.
    pub pointer: Option<String>,
    pub reason: String,
    /// `YYYY-MM-DD`: after this date the ignore stops applying.
    pub until: Option<String>,
}

impl Config {
    /// Load and validate a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let _ = path;
        todo!("config helper")
    }

    /// A one-server config for `mcp-pin lock -- CMD ARGS...`.
    pub fn ad_hoc(dir: PathBuf, command: Vec<String>) -> Config {
        let mut it = command.into_iter();
        let cmd = it.next().unwrap_or_default();
        let args: Vec<String> = it.collect();
        let name = Path::new(&cmd)
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "server".into());
        let name = if name == "npx" || name == "uvx" || name == "node" || name == "python" || name == "python3" {
            args.iter()
                .find(|a| !a.starts_with('-'))
                .map(|a| a.rsplit('/').next().unwrap_or(a).split('@').next().unwrap_or(a).to_string())
                .filter(|s| !s.is_empty())
                .unwrap_or(name)
        } else {
            name
        };
        let server = ServerConfig {
            name: name.clone(),
            transport: Transport::Stdio(Stdio {
                command: cmd.clone(),
                command_template: cmd,
                args: args.clone(),
                args_template: args,
                env: BTreeMap::new(),
                cwd: None,
                cwd_template: None,
            }),
            timeout: DEFAULT_TIMEOUT,
            client_capabilities: vec![],
            probe: ProbePolicy::ReadOnly,
            tools: BTreeMap::new(),
        };
        let mut servers = BTreeMap::new();
        servers.insert(name, server);
        Config { path: None, dir, servers, rules: BTreeMap::new(), ignores: vec![] }
    }
}

impl ServerConfig {
    /// Every secret value this server's config holds (env values, header values, URL userinfo
    /// and query values), for scrubbing from messages. Values shorter than 4 chars are skipped.
    pub fn secrets(&self) -> Vec<String> {
        let mut out = Vec::new();
        match &self.transport {
            Transport::Stdio(s) => out.extend(s.env.values().cloned()),
            Transport::Http(h) => {
                out.extend(h.headers.values().cloned());
                out.extend(url_secrets(&h.url));
            }
        }
        out.retain(|s| s.len() >= 4);
        out
    }
}

/// Userinfo and query-parameter values in a URL: treated as secrets.
pub fn url_secrets(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(rest) = url.split_once("://").map(|x| x.1) {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            out.push(userinfo.to_string());
            if let Some((u, p)) = userinfo.split_once(':') {
                out.push(u.to_string());
                out.push(p.to_string());
            }
        }
    }
    if let Some((_, q)) = url.split_once('?') {
        let q = q.split('#').next().unwrap_or("");
        for pair in q.split('&') {
            if let Some((_, v)) = pair.split_once('=') {
                if !v.is_empty() {
                    out.push(v.to_string());
                }
            }
        }
    }
    out
}

/// A URL fit for the lockfile and logs: userinfo and query values replaced by `REDACTED`.
pub fn redact_url(url: &str) -> String {
    let mut s = url.to_string();
    for secret in url_secrets(url) {
        if !secret.is_empty() {
            s = s.replace(&secret, "REDACTED");
        }
    }
    s
}
