//! `mcp-pin.toml`: which servers to pin, how to reach them, and policy.
//!
//! Interface used by the rest of the crate. Values are resolved (`${VAR}` expanded) at load;
//! the `*_template` fields keep what the user wrote, which is what the lockfile may record.
//! (For a client config such as `.vscode/mcp.json`, the templates are re-spelled in
//! `mcp-pin.toml` syntax: `${env:X}` becomes `${X}`.)
//!
//! Modules: [`toml`] reads `mcp-pin.toml`, [`clients`] reads the configs other MCP clients
//! already have (detected by content), [`expand`] does `${VAR}`, [`init`] writes a starter
//! `mcp-pin.toml`. See `docs/config.md` for every key.

mod build;
pub mod clients;
pub mod expand;
pub mod identity;
pub mod init;
pub mod launch;
pub mod toml;
pub mod wrap;

pub use clients::discover;
pub use identity::Client;
pub use init::init_toml;
pub use launch::Launch;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::rules::Class;
use crate::rules::RuleId;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default `max_tools` (the largest real servers list a few hundred).
pub const DEFAULT_MAX_TOOLS: usize = 10_000;
/// Default `max_listing_bytes`: what a server may send for its surface (the handshake and every
/// `tools/list` page together) before mcp-pin stops reading. The largest real servers send well
/// under 1 MiB; 10,000 tools of 1.6 KB fit.
pub const DEFAULT_MAX_LISTING_BYTES: usize = 16 << 20;
/// The largest config file read.
pub const MAX_CONFIG: u64 = 16 << 20;

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
    /// Under CI, the config reads a variable the invocation did not allow.
    #[error("config file {path}: server `{server}` uses ${{{var}}}, and under CI (`CI` is set) a config may read an environment variable only when the run allows it: a config from a pull request could otherwise send any job secret to a server it chooses")]
    NotAllowed { path: PathBuf, server: String, var: String },
    /// A variable whose value is too short to be masked in output.
    #[error("config file {path}: server `{server}`: the value of ${{{var}}} is shorter than {} characters, too short to be masked in logs and reports", crate::secrets::MIN_SECRET_LEN)]
    ShortSecret { path: PathBuf, server: String, var: String },
    /// A problem at a known place in the file (1-based line and column).
    #[error("config file {path}:{line}:{column}: {message}")]
    At { path: PathBuf, line: usize, column: usize, message: String },
    /// VS Code `${input:ID}`: VS Code prompts for it; mcp-pin reads `MCP_PIN_INPUT_<ID>` instead.
    #[error("config file {path}: server `{server}`: `${{input:{input}}}` is prompted by VS Code when it starts the server, and mcp-pin cannot prompt; set environment variable `{var}`, or define this server in mcp-pin.toml")]
    MissingInput { path: PathBuf, server: String, input: String, var: String },
    /// Every problem of one load, reported at once (each server's, each key's): a fix-and-push
    /// loop never finds them one per run.
    #[error("{}", several(.0))]
    Several(Vec<ConfigError>),
}

/// `N problems in the config:` and each problem on its own line.
fn several(errors: &[ConfigError]) -> String {
    let mut out = format!("{} problems in the config:", errors.len());
    for e in errors {
        out.push_str("\n  - ");
        out.push_str(&e.to_string().replace('\n', "\n    "));
    }
    out
}

impl ConfigError {
    /// One error for `errors` (the one itself when there is one); `None` for none. Nested lists
    /// are flattened and a repeated message kept once.
    pub fn gather(errors: Vec<ConfigError>) -> Option<ConfigError> {
        let mut flat: Vec<ConfigError> = vec![];
        for e in errors {
            let items = match e {
                ConfigError::Several(v) => v,
                e => vec![e],
            };
            for e in items {
                if !flat.iter().any(|f| f.to_string() == e.to_string()) {
                    flat.push(e);
                }
            }
        }
        match flat.len() {
            0 => None,
            1 => flat.pop(),
            _ => Some(ConfigError::Several(flat)),
        }
    }

    /// Under CI, one [`ConfigError::NotAllowed`] for each reference (`(variable, default)`) of
    /// server `server` the run would have to allow: every one at once, never the first alone.
    pub fn not_allowed_of(
        path: &Path,
        server: &str,
        env: expand::EnvFn<'_>,
        refs: impl IntoIterator<Item = (String, Option<String>)>,
    ) -> Vec<ConfigError> {
        refs.into_iter()
            .filter(|(var, default)| crate::secrets::needs_allow(var, env, default.as_deref()))
            .map(|(var, _)| ConfigError::NotAllowed { path: path.to_path_buf(), server: server.to_string(), var })
            .collect()
    }

    /// The variables this error says the run must allow (`--allow-env`), in order.
    pub fn not_allowed(&self) -> Vec<&str> {
        let mut out: Vec<&str> = vec![];
        let items: &[ConfigError] = match self {
            ConfigError::Several(v) => v,
            e => std::slice::from_ref(e),
        };
        for e in items {
            if let ConfigError::NotAllowed { var, .. } = e {
                if !out.contains(&var.as_str()) {
                    out.push(var);
                }
            }
        }
        out
    }
}

impl ConfigError {
    /// What to do about it, for a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        match self {
            ConfigError::NotAllowed { var, .. } => Some(format!(
                "allow it for this run: `mcp-pin --allow-env {var} ...` (the Action's input `allow-env: {var}`); see docs/security.md"
            )),
            ConfigError::Several(errors) => {
                let vars = self.not_allowed().join(",");
                let mut hints: Vec<String> = vec![];
                if !vars.is_empty() {
                    hints.push(format!(
                        "allow them all for this run: `mcp-pin --allow-env {vars} ...` (the Action's input `allow-env: {vars}`); see docs/security.md"
                    ));
                }
                for h in errors.iter().filter(|e| !matches!(e, ConfigError::NotAllowed { .. })).filter_map(|e| e.hint()) {
                    if !hints.contains(&h) {
                        hints.push(h);
                    }
                }
                (!hints.is_empty()).then(|| hints.join("\nhint: "))
            }
            ConfigError::ShortSecret { var, .. } => Some(format!(
                "if `{var}` is no secret, write its value in the config itself; otherwise use a longer secret"
            )),
            _ => None,
        }
    }

    /// The 1-based line the error points at, when known.
    pub fn line(&self) -> Option<usize> {
        match self {
            ConfigError::At { line, .. } => Some(*line),
            ConfigError::Several(v) => v.first().and_then(ConfigError::line),
            _ => None,
        }
    }

    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ConfigError::Invalid { path, .. }
            | ConfigError::Io { path, .. }
            | ConfigError::MissingVar { path, .. }
            | ConfigError::NotAllowed { path, .. }
            | ConfigError::ShortSecret { path, .. }
            | ConfigError::At { path, .. }
            | ConfigError::MissingInput { path, .. } => path,
            ConfigError::Several(v) => v.first().map_or(Path::new(""), ConfigError::path),
        }
    }
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
    pub rules: BTreeMap<RuleId, Class>,
    /// `[[ignore]]` entries.
    pub ignores: Vec<Ignore>,
    /// `[proxy]`: what `mcp-pin proxy` does beyond the lock's verdict.
    pub proxy: ProxyPolicy,
}

/// `[proxy]` (docs/proxy.md): how `mcp-pin proxy` treats what the lock does not decide.
#[derive(Debug, Clone, Default)]
pub struct ProxyPolicy {
    /// `new_tools = "hide"`: a tool the lock does not pin is neither listed nor callable
    /// (default `"serve"`: listed, a loud change).
    pub hide_new_tools: bool,
    /// `unpinned = "serve"`: a server missing from the lock is relayed, every tool judged as new
    /// (default `"refuse"`: the proxy does not start it).
    pub serve_unpinned: bool,
    /// `[[proxy.allow]]`: results failing one of the rules the proxy blocks
    /// ([`crate::rules::blocked_results`]) that are passed on (flagged) instead, each with its
    /// reason.
    pub allow: Vec<Ignore>,
}

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    /// Per-request timeout; also the deadline of the whole `tools/list` listing.
    pub timeout: Duration,
    /// `max_tools`: a listing with more tools is an error (memory grows with the surface).
    pub max_tools: usize,
    /// `max_listing_bytes`: a surface (handshake and every `tools/list` page) larger than this is
    /// refused while it is read.
    pub max_listing_bytes: usize,
    /// `client`: the MCP client mcp-pin presents itself as ([`identity`]).
    pub client: Client,
    /// Whether the config wrote `client` (else it is the default for the config's format).
    pub client_set: bool,
    /// Client capabilities to declare (`roots`, `sampling`, `elicitation`), sorted, deduplicated.
    pub client_capabilities: Vec<String>,
    /// Whether the config wrote `client_capabilities` (then exactly those are declared; else
    /// those of `client`: [`ServerConfig::declared_capabilities`]).
    pub client_capabilities_set: bool,
    /// Probe policy for this server's tools (issue: probes).
    pub probe: ProbePolicy,
    /// Per-tool settings (`[servers.NAME.tools.TOOL]`).
    pub tools: BTreeMap<String, ToolConfig>,
}

/// Which tools probes call, and where (docs/probes.md, "Which tools are called").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProbePolicy {
    /// `"sandbox"` (the default): read-only tools in the server's own session, every other tool
    /// of a stdio server in a second session inside the sandbox; where there is no sandbox,
    /// those are skipped.
    #[default]
    Sandbox,
    /// `"read-only"`: read-only tools (and tools with an `args` fixture) in the server's own
    /// session; nothing in a sandbox.
    ReadOnly,
    /// `"all"`: every tool, in the server's own session (the user's word).
    All,
    /// `"none"`: no tool.
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

impl Transport {
    /// How the server is started or reached, as written in the config.
    pub fn launch(&self) -> &Launch {
        match self {
            Transport::Stdio(s) => &s.launch,
            Transport::Http(h) => &h.launch,
        }
    }
}

#[derive(Clone)]
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
    /// `inherit_env`: variables passed on from mcp-pin's own environment by name, beyond the
    /// default set ([`crate::client::stdio::INHERITED`]). Values resolved at load (secrets).
    pub inherit_env: BTreeMap<String, String>,
    /// Working folder (resolved against `Config::dir`).
    pub cwd: Option<PathBuf>,
    /// `cwd` as written.
    pub cwd_template: Option<String>,
    /// Command, args and cwd in the config's own text, unexpanded (`server-launch-changed`).
    pub launch: Launch,
}

impl Stdio {
    /// The variables (`${VAR}`, `${input:ID}`...) whose secret values landed in `args`, as
    /// written; empty when no argument holds a registered secret. A program's command line is
    /// readable by every process on the machine (`/proc/PID/cmdline`, `ps`), so `lock` and
    /// `check` warn about each server this names (docs/config.md: `env` is the place).
    pub fn secrets_in_args(&self) -> Vec<String> {
        let mut out: Vec<String> = vec![];
        for (value, written) in self.args.iter().zip(&self.args_template) {
            if crate::secrets::mask(value) == value.as_str() {
                continue;
            }
            let vars = expand::template_vars(written);
            let named: Vec<String> = vars
                .into_iter()
                .filter(|v| !crate::secrets::NOT_SECRET.contains(&v.as_str()))
                .map(|v| format!("${{{v}}}"))
                .collect();
            for n in if named.is_empty() { vec!["a configured secret".to_string()] } else { named } {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
        out
    }
}

#[derive(Clone)]
pub struct Http {
    /// URL with `${VAR}` expanded. May hold a secret (userinfo, `?token=`).
    pub url: String,
    /// URL as written.
    pub url_template: String,
    /// The URL in the config's own text, unexpanded, redacted (`server-launch-changed`).
    pub launch: Launch,
    /// Headers with values expanded. Secret: never logged or locked.
    pub headers: BTreeMap<String, String>,
    /// `allow_redirects`: origins (`https://host:port`) a redirect may lead to. The configured
    /// headers are never sent there; a redirect to any other origin is an error.
    pub allow_redirects: Vec<String>,
    /// `oauth`: a token by an OAuth grant for CI ([`crate::client::oauth`]).
    pub oauth: Option<OAuth>,
}

/// `oauth = { ... }` of an HTTP server.
#[derive(Clone)]
pub struct OAuth {
    pub client_id: String,
    /// The client secret (`client_secret_basic` / `client_secret_post`); empty with a key.
    pub client_secret: String,
    /// A PEM private key instead of a secret: the client authenticates with a signed JWT
    /// assertion (`private_key_jwt`, RFC 7523), signed with `signing_algorithm`.
    pub private_key: Option<String>,
    /// `ES256` (default), `ES384`, `RS256`, `PS256` or `EdDSA`.
    pub signing_algorithm: Option<String>,
    /// `scope` to request (space-separated), if any.
    pub scope: Option<String>,
    /// The authorization server's issuer the client secret may go to.
    pub issuer: Option<String>,
    /// Trust whichever authorization server the resource server names (the conformance
    /// adapter only; never from a config).
    pub trust_discovered_issuer: bool,
    /// `grant`: how the token is obtained (default: client credentials).
    pub grant: Grant,
    /// `dpop = true`: a DPoP-bound token (RFC 9449), every request with a fresh proof.
    pub dpop: bool,
}

/// `oauth.grant`. Every value held here is a secret.
#[derive(Clone, Default)]
pub enum Grant {
    /// `"client-credentials"` (the default): `client_id` and a secret or key.
    #[default]
    ClientCredentials,
    /// `"jwt-bearer"` (RFC 7523 §2.1, workload identity federation): an externally issued JWT
    /// (`assertion`, e.g. a CI OIDC token) is the grant; client authentication is optional.
    JwtBearer { assertion: String },
    /// `"enterprise-managed"` (SEP-990): `id_token` exchanged at the IdP's token endpoint for an
    /// ID-JAG (RFC 8693), which is the JWT-bearer grant at the authorization server.
    EnterpriseManaged {
        id_token: String,
        idp_token_endpoint: String,
        idp_client_id: Option<String>,
        idp_client_secret: Option<String>,
    },
    /// The conformance adapter only, never from a config: the suite's authorization server
    /// approves an authorization-code request without a user ([`crate::app::conformance::oauth`]).
    #[doc(hidden)]
    ConformanceAuthorizationCode,
}

impl Grant {
    /// The config spelling.
    pub fn name(&self) -> &'static str {
        match self {
            Grant::ClientCredentials => "client-credentials",
            Grant::JwtBearer { .. } => "jwt-bearer",
            Grant::EnterpriseManaged { .. } => "enterprise-managed",
            Grant::ConformanceAuthorizationCode => "authorization-code",
        }
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("client_id", &"***")
            .field("client_secret", &"***")
            .field("scope", &self.scope)
            .field("issuer", &self.issuer)
            .field("grant", &self.grant.name())
            .field("dpop", &self.dpop)
            .finish()
    }
}

#[derive(Debug, Clone)]
pub struct Ignore {
    pub rule: RuleId,
    pub server: Option<String>,
    pub tool: Option<String>,
    /// JSON pointer prefix.
    pub pointer: Option<String>,
    pub reason: String,
    /// `YYYY-MM-DD`: after this date the ignore stops applying.
    pub until: Option<String>,
}

/// `Debug` never shows secrets: env and header values print as `***`, expanded arguments as
/// their template, and URLs through [`redact_url`].
impl std::fmt::Debug for Stdio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let env: BTreeMap<&str, &str> = self.env.keys().map(|k| (k.as_str(), "***")).collect();
        // An argument that came from `${VAR}` may hold a secret: show what was written instead.
        let args: Vec<&str> = self
            .args
            .iter()
            .zip(self.args_template.iter().map(Some).chain(std::iter::repeat(None)))
            .map(|(a, t)| match t {
                Some(t) if t.contains('$') => "***",
                Some(_) => a.as_str(),
                None => "***",
            })
            .collect();
        f.debug_struct("Stdio")
            .field("command", &self.command)
            .field("command_template", &self.command_template)
            .field("args", &args)
            .field("args_template", &self.args_template)
            .field("env", &env)
            .field("cwd", &self.cwd)
            .field("cwd_template", &self.cwd_template)
            .finish()
    }
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: BTreeMap<&str, &str> = self.headers.keys().map(|k| (k.as_str(), "***")).collect();
        let url = if self.url_template.contains('$') { "***".to_string() } else { redact_url(&self.url) };
        f.debug_struct("Http")
            .field("url", &url)
            .field("url_template", &redact_url(&self.url_template))
            .field("headers", &headers)
            .finish()
    }
}

/// Which kind of file a config was read from (detected by content, not by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `mcp-pin.toml`.
    McpPin,
    /// A JSON file with top-level `mcpServers`: Claude Code `.mcp.json`, Claude Desktop
    /// `claude_desktop_config.json`, Cursor `.cursor/mcp.json`.
    McpServers,
    /// VS Code `.vscode/mcp.json` (JSONC, top-level `servers`).
    VsCode,
}

/// A loaded config with what was learned on the way.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub config: Config,
    pub format: Format,
    /// Human name of the source, e.g. "Claude Code (.mcp.json)".
    pub source: String,
    /// Things worth a `warning:` line (skipped disabled servers, keys mcp-pin ignores).
    pub warnings: Vec<String>,
    /// Servers of the file left out, by name, with why (a transport mcp-pin does not speak):
    /// `init` writes each as a comment.
    pub skipped: Vec<(String, String)>,
    /// Template mode: each stdio server's dotenv file (`envFile`), as an `mcp-pin.toml`
    /// template, by server name; `init` writes it as `env_file` instead of copying values.
    pub env_files: BTreeMap<String, String>,
}

impl Config {
    /// Load and validate a config file: `mcp-pin.toml`, or a client config detected by content
    /// (see [`Format`]). `${VAR}` references are resolved from the process environment.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let env = |name: &str| std::env::var(name).ok();
        Ok(Self::load_with(path, Some(&env))?.config)
    }

    /// Like [`Config::load`], with an explicit environment. `env: None` is template mode: no
    /// variable is looked up and every expanded value holds its `mcp-pin.toml` template
    /// (`${VAR}`); this never fails on a missing variable and is what `init` reads.
    pub fn load_with(path: &Path, env: Option<expand::EnvFn<'_>>) -> Result<Loaded, ConfigError> {
        Self::load_only(path, env, None)
    }

    /// Like [`Config::load_with`], resolving `${VAR}` only for the servers in `only` (all when
    /// `None`). Every server is still parsed and validated, and kept in [`Config::servers`], but
    /// a server left out is read in template mode: none of its variables is looked up (so none
    /// needs to be set, or allowed under CI), and its values hold their templates. It must not
    /// be contacted; `--server` / `--shard` runs read only what they contact.
    pub fn load_only(
        path: &Path,
        env: Option<expand::EnvFn<'_>>,
        only: Option<&BTreeSet<String>>,
    ) -> Result<Loaded, ConfigError> {
        let text = crate::files::read_regular(path, MAX_CONFIG)
            .map_err(|source| ConfigError::Io { path: path.to_path_buf(), source })?;
        Self::parse_only(&text, path, env, only)
    }

    /// Parse config text as if read from `path` (which sets `Config::dir` and names errors).
    pub fn parse_with(text: &str, path: &Path, env: Option<expand::EnvFn<'_>>) -> Result<Loaded, ConfigError> {
        Self::parse_only(text, path, env, None)
    }

    /// [`Config::parse_with`], resolving only the servers in `only` (see [`Config::load_only`]).
    pub fn parse_only(
        text: &str,
        path: &Path,
        env: Option<expand::EnvFn<'_>>,
        only: Option<&BTreeSet<String>>,
    ) -> Result<Loaded, ConfigError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if clients::looks_like_json(text) {
            clients::parse(text, path, env, only)
        } else {
            let config = toml::parse(text, path, env, only)?;
            Ok(Loaded {
                config,
                format: Format::McpPin,
                source: "mcp-pin.toml".into(),
                warnings: vec![],
                skipped: vec![],
                env_files: BTreeMap::new(),
            })
        }
    }

    /// [`Config::load`] with the format, a human name of the source and warnings, for the CLI
    /// to print ("using .vscode/mcp.json (VS Code)", `warning: ...`).
    pub fn load_detailed(path: &Path) -> Result<Loaded, ConfigError> {
        let env = |name: &str| std::env::var(name).ok();
        Self::load_with(path, Some(&env))
    }

    /// Template mode load (see [`Config::load_with`]), for `mcp-pin init`.
    pub fn load_unresolved(path: &Path) -> Result<Loaded, ConfigError> {
        Self::load_with(path, None)
    }

    /// A one-server config for `mcp-pin lock -- CMD ARGS...`.
    pub fn ad_hoc(dir: PathBuf, command: Vec<String>) -> Config {
        // `mcp-pin lock -- https://host/mcp`: one Streamable HTTP server.
        if let [url] = command.as_slice() {
            if url.starts_with("http://") || url.starts_with("https://") {
                let host = url
                    .split("://")
                    .nth(1)
                    .unwrap_or("")
                    .split(['/', '?', ':', '@'])
                    .find(|s| !s.is_empty() && !s.contains('='))
                    .unwrap_or("server");
                let name: String = host
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
                    .collect();
                let server = ServerConfig::with_defaults(
                    &name,
                    Transport::Http(Http {
                        launch: Launch::http(url),
                        url: url.clone(),
                        url_template: url.clone(),
                        headers: BTreeMap::new(),
                        allow_redirects: vec![],
                        oauth: None,
                    }),
                );
                let mut servers = BTreeMap::new();
                servers.insert(name, server);
                return Config {
                    path: None,
                    dir,
                    servers,
                    rules: BTreeMap::new(),
                    ignores: vec![],
                    proxy: ProxyPolicy::default(),
                };
            }
        }
        let mut it = command.into_iter();
        let cmd = it.next().unwrap_or_default();
        let args: Vec<String> = it.collect();
        let name =
            Path::new(&cmd).file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "server".into());
        let name = if name == "npx" || name == "uvx" || name == "node" || name == "python" || name == "python3" {
            args.iter()
                .find(|a| !a.starts_with('-'))
                .map(|a| a.rsplit('/').next().unwrap_or(a).split('@').next().unwrap_or(a).to_string())
                .filter(|s| !s.is_empty())
                .unwrap_or(name)
        } else {
            name
        };
        let server = ServerConfig::with_defaults(
            &name,
            Transport::Stdio(Stdio {
                // As typed on the command line: what the config would have held.
                launch: Launch::stdio(&cmd, &args, None),
                command: cmd.clone(),
                command_template: cmd,
                args: args.clone(),
                args_template: args,
                env: BTreeMap::new(),
                inherit_env: BTreeMap::new(),
                cwd: None,
                cwd_template: None,
            }),
        );
        let mut servers = BTreeMap::new();
        servers.insert(name, server);
        Config { path: None, dir, servers, rules: BTreeMap::new(), ignores: vec![], proxy: ProxyPolicy::default() }
    }
}

impl ServerConfig {
    /// A server with every optional setting at its default.
    pub fn with_defaults(name: &str, transport: Transport) -> ServerConfig {
        ServerConfig {
            name: name.to_string(),
            transport,
            timeout: DEFAULT_TIMEOUT,
            max_tools: DEFAULT_MAX_TOOLS,
            max_listing_bytes: DEFAULT_MAX_LISTING_BYTES,
            client: Client::default(),
            client_capabilities: vec![],
            client_capabilities_set: false,
            client_set: false,
            probe: ProbePolicy::default(),
            tools: BTreeMap::new(),
        }
    }

    /// The client capabilities mcp-pin declares to this server: exactly those of a
    /// `client_capabilities` line, else those of the `client` it presents itself as (Claude Code
    /// declares `roots` and `elicitation`). To a server declared `roots`, a stdio session answers
    /// with its working folder and the folders on its command line (probes name them: see
    /// `client::roots`). Sorted; what the lock records as `clientCapabilities`.
    pub fn declared_capabilities(&self) -> Vec<String> {
        if self.client_capabilities_set {
            return self.client_capabilities.clone();
        }
        let own: serde_json::Value = serde_json::from_str(self.client.info().capabilities).unwrap_or_default();
        let mut caps: Vec<String> = own.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
        caps.sort();
        caps
    }

    /// This server started in `dir` (the config's folder) when its config names no `cwd`: what
    /// the proxy does, so that the relative paths of its arguments (a script, a data file) are
    /// found from the config's folder whatever working folder the client starts the proxy in.
    pub fn started_in(mut self, dir: &Path) -> ServerConfig {
        if let Transport::Stdio(s) = &mut self.transport {
            if s.cwd.is_none() {
                s.cwd = Some(dir.to_path_buf());
            }
        }
        self
    }

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

impl Ignore {
    /// Whether this entry silences `rule` at (`server`, `tool`, `pointer`) on `today`
    /// (`YYYY-MM-DD`; the entry applies through its `until` date inclusive).
    pub fn matches(&self, rule: RuleId, server: &str, tool: Option<&str>, pointer: &str, today: &str) -> bool {
        self.rule == rule
            && self.server.as_deref().is_none_or(|s| s == server)
            && self.tool.as_deref().is_none_or(|t| Some(t) == tool)
            && self.pointer.as_deref().is_none_or(|p| pointer_has_prefix(pointer, p))
            && self.until.as_deref().is_none_or(|u| today <= u)
    }

    /// Whether the entry has expired on `today` (`YYYY-MM-DD`).
    pub fn expired(&self, today: &str) -> bool {
        self.until.as_deref().is_some_and(|u| today > u)
    }
}

/// The `NAME=value` pairs of a server's dotenv file (`env_file` in mcp-pin.toml, `envFile` in a
/// client config), `file` resolved against the config folder. The values are secrets: each is
/// registered for masking. Under CI (a config from a pull request is code) the file must be
/// inside the config's folder and outside `.git` (which holds the checkout's credentials); the
/// error message never quotes a line of the file.
/// `key` names the setting in messages (`env_file`, `envFile`).
pub(crate) fn read_env_file(dir: &Path, file: &str, key: &str) -> Result<Vec<(String, String)>, String> {
    let path = resolve_cwd(dir, file);
    if *crate::secrets::policy() != crate::secrets::EnvPolicy::Any {
        let inside = Path::new(file).is_relative()
            && !Path::new(file).components().any(|c| matches!(c, std::path::Component::ParentDir))
            && !Path::new(file).components().any(|c| c.as_os_str() == ".git");
        let real_inside = match (std::fs::canonicalize(&path), std::fs::canonicalize(dir)) {
            (Ok(p), Ok(d)) => p.starts_with(d),
            _ => true, // a missing file fails below
        };
        if !(inside && real_inside) {
            return Err(format!(
                "`{key}` {file}: under CI (`CI` is set) a dotenv file must be inside the config's folder and outside .git: a config from a pull request could otherwise send any file's values to a server it chooses"
            ));
        }
    }
    let text = crate::files::read_regular(&path, MAX_CONFIG)
        .map_err(|e| format!("cannot read `{key}` {}: {e}", path.display()))?;
    let pairs = clients::parse_dotenv(&text)
        .map_err(|line| format!("`{key}` {}: line {line} is not `NAME=value`", path.display()))?;
    // Each value that is a secret (not `true`, `8080`, nor too short: `secrets::kind_of`).
    for (_, v) in &pairs {
        crate::secrets::register(v);
    }
    Ok(pairs)
}

/// JSON-pointer prefix by whole segments: `/a/b/c` is under `/a/b`; `/a/bc` is not.
fn pointer_has_prefix(pointer: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    prefix.is_empty()
        || pointer == prefix
        || (pointer.starts_with(prefix) && pointer.as_bytes().get(prefix.len()) == Some(&b'/'))
}

pub(crate) use crate::suggest::suggest;

/// `" (did you mean `x`?)"` or nothing.
pub(crate) fn hint<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match suggest(word, candidates) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => String::new(),
    }
}

/// Server names: `[A-Za-z0-9_.-]+`.
pub fn valid_server_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// `Config::dir` for a config file: its folder, made absolute (lexically; symlinks untouched).
pub(crate) fn base_dir(folder: &Path) -> PathBuf {
    let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
    normalize(&std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf()))
}

/// Drop `.` components and fold `x/..` lexically.
pub(crate) fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// A command as spawned: a relative path with a separator resolves against `dir`; a bare name
/// stays for PATH lookup.
pub(crate) fn resolve_command(dir: &Path, command: &str) -> String {
    let has_sep = command.contains('/') || (cfg!(windows) && command.contains('\\'));
    if has_sep && Path::new(command).is_relative() {
        normalize(&dir.join(command)).to_string_lossy().into_owned()
    } else {
        command.to_string()
    }
}

/// A `cwd` as used: relative resolves against `dir`.
pub(crate) fn resolve_cwd(dir: &Path, cwd: &str) -> PathBuf {
    normalize(&dir.join(cwd))
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
    if let Some(rest) = url.split_once("://").map(|x| x.1) {
        let path = rest.split(['?', '#']).next().unwrap_or("");
        out.extend(path.split('/').skip(1).filter(|s| init::token_segment(s)).map(str::to_string));
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

/// `scheme://host:port` of a URL (the port made explicit): what a redirect, a credential or a
/// header may not leave without the config's word.
pub fn origin(url: &reqwest::Url) -> String {
    format!("{}://{}:{}", url.scheme(), url.host_str().unwrap_or(""), url.port_or_known_default().unwrap_or(0))
}

/// A URL fit for the lockfile and logs: userinfo and query-parameter values replaced by
/// `REDACTED`, component by component (never by searching the text for the value, which would
/// also hit an equal run of characters elsewhere in the URL).
pub fn redact_url(url: &str) -> String {
    map_url_secrets(url, |_| "REDACTED".to_string())
}

/// `url` rebuilt with each secret-bearing component (the userinfo's user and password, a path
/// segment shaped like a token ([`init::token_segment`]), each query parameter's value)
/// replaced by `f(component)`; empty values and `${VAR}` references are kept as written.
pub fn map_url_secrets(url: &str, mut f: impl FnMut(&str) -> String) -> String {
    let mut g = |v: &str| if v.is_empty() || expand::is_template(v) { v.to_string() } else { f(v) };
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, url),
    };
    let (before_fragment, fragment) = match rest.split_once('#') {
        Some((b, fr)) => (b, Some(fr)),
        None => (rest, None),
    };
    let (before_query, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    let authority_end = if scheme.is_some() { before_query.find('/').unwrap_or(before_query.len()) } else { 0 };
    let (authority, path) = before_query.split_at(authority_end);
    let mut out = String::with_capacity(url.len());
    if let Some(s) = scheme {
        out.push_str(s);
        out.push_str("://");
    }
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            match userinfo.split_once(':') {
                Some((u, pw)) => {
                    out.push_str(&g(u));
                    out.push(':');
                    out.push_str(&g(pw));
                }
                None => out.push_str(&g(userinfo)),
            }
            out.push('@');
            out.push_str(host);
        }
        None => out.push_str(authority),
    }
    let segments: Vec<String> =
        path.split('/').map(|seg| if init::token_segment(seg) { g(seg) } else { seg.to_string() }).collect();
    out.push_str(&segments.join("/"));
    if let Some(q) = query {
        out.push('?');
        let pairs: Vec<String> = q
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, v)) => format!("{k}={}", g(v)),
                None => pair.to_string(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    if let Some(fr) = fragment {
        out.push('#');
        out.push_str(fr);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_url_redaction_is_by_component() {
        assert_eq!(
            redact_url("https://u:pw@h.example/mcp/v1?v=1&apikey=sk-1abc&flag&k=${KEY}#x"),
            "https://REDACTED:REDACTED@h.example/mcp/v1?v=REDACTED&apikey=REDACTED&flag&k=${KEY}#x"
        );
        // A value equal to part of the host or path is not replaced there.
        assert_eq!(redact_url("https://h1.example/1?a=1"), "https://h1.example/1?a=REDACTED");
        assert_eq!(redact_url("http://127.0.0.1:9/mcp"), "http://127.0.0.1:9/mcp");
        // A token in the path is a secret too.
        assert_eq!(redact_url("https://h.example/sk-abcdef1234567890/mcp"), "https://h.example/REDACTED/mcp");
        assert_eq!(
            url_secrets("https://h.example/x/ghp_0123456789abcdefABCD/mcp?a=1"),
            ["ghp_0123456789abcdefABCD", "1"]
        );
    }

    #[test]
    fn config_pointer_prefix() {
        assert!(pointer_has_prefix("/inputSchema/properties/city", "/inputSchema/properties/city"));
        assert!(pointer_has_prefix("/inputSchema/properties/city/description", "/inputSchema/properties/city"));
        assert!(pointer_has_prefix("/inputSchema/properties/city/description", "/inputSchema/properties/city/"));
        assert!(!pointer_has_prefix("/inputSchema/properties/cityName", "/inputSchema/properties/city"));
        assert!(pointer_has_prefix("/anything", ""));
    }

    #[test]
    fn config_suggestions() {
        assert_eq!(suggest("arg", ["command", "args", "env"]), Some("args"));
        assert_eq!(suggest("comand", ["command", "args"]), Some("command"));
        assert_eq!(suggest("client_capability", ["client_capabilities", "probe"]), Some("client_capabilities"));
        assert_eq!(suggest("readonly", ["read-only", "all", "none"]), Some("read-only"));
        assert_eq!(suggest("zzzzzz", ["command", "args", "env"]), None);
        assert_eq!(suggest("x", ["env", "cwd"]), None);
        assert_eq!(crate::suggest::edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn config_paths() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
        assert!(base_dir(Path::new("")).is_absolute());
        assert_eq!(resolve_command(Path::new("/p"), "node"), "node");
        assert_eq!(resolve_command(Path::new("/p"), "./bin/s"), "/p/bin/s");
        assert_eq!(resolve_command(Path::new("/p"), "/usr/bin/s"), "/usr/bin/s");
        assert_eq!(resolve_cwd(Path::new("/p"), "sub/.."), PathBuf::from("/p"));
        assert!(valid_server_name("a.b-c_1"));
        assert!(!valid_server_name("a b") && !valid_server_name("") && !valid_server_name("a/b"));
    }

    #[test]
    fn config_debug_redacts() {
        let s = Stdio {
            command: "x".into(),
            command_template: "x".into(),
            args: vec!["--key=sekrit-value".into(), "plain".into()],
            args_template: vec!["--key=${K}".into(), "plain".into()],
            env: [("K".to_string(), "sekrit-value".to_string())].into(),
            inherit_env: Default::default(),
            cwd: None,
            cwd_template: None,
            launch: Launch::default(),
        };
        let d = format!("{s:?}");
        assert!(!d.contains("sekrit") && d.contains("plain") && d.contains("\"K\""), "{d}");
        let h = Http {
            url: "https://u:sekrit-value@h/mcp".into(),
            url_template: "https://u:sekrit-value@h/mcp".into(),
            headers: [("A".to_string(), "sekrit-value".to_string())].into(),
            allow_redirects: vec![],
            oauth: None,
            launch: Launch::default(),
        };
        let d = format!("{h:?}");
        assert!(!d.contains("sekrit"), "{d}");
    }
}
