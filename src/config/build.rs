//! One validation path for every config front end. A front end (`mcp-pin.toml` in [`super::toml`],
//! the client configs in [`super::clients`]) only reads its syntax: it checks the types it sees
//! and hands over what was written for a server, each value with where it was written
//! ([`Written`]). Everything else — `${VAR}` expansion through the secrets policy, the checks on
//! commands, environment names, dotenv files, URLs, header names and values, redirect origins,
//! resolving paths against the config's folder — is done here, once, so both front ends accept
//! and refuse the same things with the same words. Adding a client config format is reading its
//! syntax into these specs (see CONTRIBUTING.md).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::expand::{Dialect, EnvFn, ExpandError, Expanded, Expander};
use super::{resolve_command, resolve_cwd, ConfigError, Http, Launch, Stdio};

/// Where a value was written: a byte range of the source (TOML knows its spans), or nowhere in
/// particular (a JSON client config: the error names the file and the server).
pub(crate) type At = Option<Range<usize>>;

/// A string value as written, with where.
#[derive(Debug, Clone)]
pub(crate) struct Written {
    pub text: String,
    pub at: At,
}

impl Written {
    pub fn new(text: impl Into<String>, at: At) -> Written {
        Written { text: text.into(), at }
    }
}

/// The file a server is read from, as the builder needs it.
pub(crate) struct Source<'a> {
    pub path: &'a Path,
    /// The config's folder: relative commands, `cwd` and dotenv files resolve against it.
    pub dir: &'a Path,
    /// `None`: template mode (`init`, listing names): nothing is read from the environment.
    pub env: Option<EnvFn<'a>>,
    pub dialect: Dialect,
    /// The front end's error at a place (file:line:col where it has a span).
    pub error: &'a dyn Fn(&At, String) -> ConfigError,
    /// The server's variables the config says are no secret (`not_secret`).
    pub not_secret: &'a [String],
}

impl Source<'_> {
    fn err(&self, at: &At, message: String) -> ConfigError {
        (self.error)(at, message)
    }

    /// How a value is recorded as a template (the lock's `source`, `init`'s output): a value of
    /// mcp-pin's own dialect as written, a client's respelled in mcp-pin's syntax.
    fn template(&self, w: &Written, x: &Expanded) -> String {
        if self.dialect == Dialect::McpPin {
            w.text.clone()
        } else {
            x.template.clone()
        }
    }

    /// `${VAR}` expansion with errors mapped to the file. Messages never hold a resolved value.
    pub fn expand(&self, server: &str, w: &Written, what: &str) -> Result<Expanded, ConfigError> {
        let ex = Expander { dialect: self.dialect, env: self.env, workspace: self.dir, not_secret: self.not_secret };
        let (path, server_name) = (self.path.to_path_buf(), server.to_string());
        ex.expand(&w.text).map_err(|e| match e {
            ExpandError::Missing { var } => ConfigError::MissingVar { path, server: server_name, var },
            ExpandError::MissingInput { input, var } => {
                ConfigError::MissingInput { path, server: server_name, input, var }
            }
            ExpandError::NotAllowed { var } => ConfigError::NotAllowed { path, server: server_name, var },
            ExpandError::TooShort { var } => ConfigError::ShortSecret { path, server: server_name, var },
            ExpandError::Syntax(m) => self.err(&w.at, format!("server `{server}`: {what}: {m}")),
        })
    }
}

/// What was written for a stdio server.
pub(crate) struct StdioSpec {
    pub command: Written,
    pub args: Vec<Written>,
    /// A dotenv file, and the key it was written under (`env_file`, `envFile`).
    pub env_file: Option<(Written, &'static str)>,
    /// `env` entries (name, value): they win over the dotenv file.
    pub env: Vec<(Written, Written)>,
    pub cwd: Option<Written>,
    /// Variables passed on from mcp-pin's environment by name.
    pub inherit_env: Vec<Written>,
}

/// A built stdio server, and in template mode its dotenv file as written (for `init`).
pub(crate) struct BuiltStdio {
    pub stdio: Stdio,
    pub env_file_template: Option<String>,
}

/// An environment variable name a process can be given.
fn valid_env_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['=', '\0'])
}

pub(crate) fn stdio(src: &Source<'_>, n: &str, spec: StdioSpec) -> Result<BuiltStdio, ConfigError> {
    if spec.command.text.trim().is_empty() {
        return Err(src.err(&spec.command.at, format!("server `{n}`: `command` is empty")));
    }
    let resolving = src.env.is_some();
    let command = src.expand(n, &spec.command, "`command`")?;
    let command_template = src.template(&spec.command, &command);
    let command_value = if resolving { resolve_command(src.dir, &command.value) } else { command.value };

    let mut args = Vec::new();
    let mut args_template = Vec::new();
    for a in &spec.args {
        let x = src.expand(n, a, "`args`")?;
        args_template.push(src.template(a, &x));
        args.push(x.value);
    }

    let mut env = BTreeMap::new();
    let mut env_file_template = None;
    if let Some((file, key)) = &spec.env_file {
        let x = src.expand(n, file, &format!("`{key}`"))?;
        if resolving {
            let pairs = super::read_env_file(src.dir, &x.value, key)
                .map_err(|m| src.err(&file.at, format!("server `{n}`: {m}")))?;
            env.extend(pairs);
        } else {
            // Template mode: the file is named, not read.
            env_file_template = Some(src.template(file, &x));
        }
    }
    for (k, v) in &spec.env {
        if !valid_env_name(&k.text) {
            return Err(src.err(&k.at, format!("server `{n}`: invalid environment variable name `{}`", k.text)));
        }
        env.insert(k.text.clone(), src.expand(n, v, &format!("`env.{}`", k.text))?.value);
    }

    let (cwd, cwd_template) = match &spec.cwd {
        None => (None, None),
        Some(w) => {
            let x = src.expand(n, w, "`cwd`")?;
            let resolved = if resolving { resolve_cwd(src.dir, &x.value) } else { PathBuf::from(&x.value) };
            (Some(resolved), Some(src.template(w, &x)))
        }
    };

    // `inherit_env = ["NAME", ...]`: passed on from mcp-pin's environment, by name, through
    // the same policy as `${NAME}` (under CI, only what the run allows).
    let mut inherit_env = BTreeMap::new();
    for w in &spec.inherit_env {
        let var = &w.text;
        if !valid_env_name(var) {
            return Err(
                src.err(&w.at, format!("server `{n}`: invalid environment variable name `{var}` in `inherit_env`"))
            );
        }
        let Some(env_fn) = src.env else {
            inherit_env.insert(var.clone(), format!("${{{var}}}"));
            continue;
        };
        let (path, server) = (src.path.to_path_buf(), n.to_string());
        let marked = src.not_secret.contains(var);
        match crate::secrets::read_setting(var, env_fn, None, marked) {
            Ok(Some(v)) => {
                inherit_env.insert(var.clone(), v);
            }
            Ok(None) => {}
            Err(crate::secrets::Refusal::NotAllowed) => {
                return Err(ConfigError::NotAllowed { path, server, var: var.clone() })
            }
            Err(crate::secrets::Refusal::TooShort) => {
                return Err(ConfigError::ShortSecret { path, server, var: var.clone() })
            }
        }
    }
    // The launch as written, never expanded or resolved: the lock pins it, and another machine
    // or folder (or a secret in the environment) must not change it.
    let launch = Launch::stdio(
        &spec.command.text,
        &spec.args.iter().map(|a| a.text.clone()).collect::<Vec<_>>(),
        spec.cwd.as_ref().map(|w| w.text.as_str()),
    );
    Ok(BuiltStdio {
        stdio: Stdio {
            launch,
            command: command_value,
            command_template,
            args,
            args_template,
            env,
            inherit_env,
            cwd,
            cwd_template,
        },
        env_file_template,
    })
}

/// What was written for a Streamable HTTP server (OAuth is the TOML front end's own table).
pub(crate) struct HttpSpec {
    pub url: Written,
    /// `headers` entries (name, value).
    pub headers: Vec<(Written, Written)>,
    /// Origins a redirect may lead to.
    pub allow_redirects: Vec<Written>,
}

pub(crate) fn http(src: &Source<'_>, n: &str, spec: HttpSpec) -> Result<Http, ConfigError> {
    let x = src.expand(n, &spec.url, "`url`")?;
    let url_template = src.template(&spec.url, &x);
    check_url(&x.value, src.env.is_none())
        .map_err(|m| src.err(&spec.url.at, format!("server `{n}`: `url` {}: {m}", super::redact_url(&url_template))))?;
    let mut headers = BTreeMap::new();
    for (k, v) in &spec.headers {
        let key = &k.text;
        if http::HeaderName::from_bytes(key.as_bytes()).is_err() {
            return Err(src.err(&k.at, format!("server `{n}`: invalid HTTP header name `{key}`")));
        }
        let value = src.expand(n, v, &format!("header `{key}`"))?.value;
        if value.contains(['\r', '\n', '\0']) {
            return Err(src.err(
                &v.at,
                format!("server `{n}`: header `{key}`: the value (after expansion) contains a line break"),
            ));
        }
        headers.insert(key.clone(), value);
    }
    let mut allow_redirects = Vec::new();
    for w in &spec.allow_redirects {
        let parsed = reqwest::Url::parse(&w.text).ok().filter(|u| {
            matches!(u.scheme(), "http" | "https") && u.host_str().is_some() && u.path() == "/" && u.query().is_none()
        });
        match parsed {
            Some(u) => allow_redirects.push(super::origin(&u)),
            None => {
                return Err(src.err(
                    &w.at,
                    format!(
                        "server `{n}`: `allow_redirects` entry `{}` is not an origin; write it as `https://host` or `https://host:port`",
                        w.text
                    ),
                ))
            }
        }
    }
    // As written (redacted), never expanded: what the lock pins for `server-launch-changed`.
    let launch = Launch::http(&spec.url.text);
    Ok(Http { url: x.value, url_template, headers, allow_redirects, oauth: None, launch })
}

/// An HTTP(S) URL with a host. In template mode `${...}` may stand anywhere, so only the scheme
/// is checked when it is literal.
fn check_url(url: &str, template: bool) -> Result<(), String> {
    if template && url.starts_with("${") {
        return Ok(());
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err("is not an absolute URL: expected https://host/path".into());
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(format!("has scheme `{scheme}`: mcp-pin speaks Streamable HTTP over http:// or https://"));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |x| x.1);
    if host.is_empty() {
        return Err("has no host".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_urls() {
        assert!(check_url("https://mcp.example.com/mcp", false).is_ok());
        assert!(check_url("http://localhost:8080/mcp", false).is_ok());
        assert!(check_url("ws://x/mcp", false).unwrap_err().contains("scheme"));
        assert!(check_url("mcp.example.com", false).is_err());
        assert!(check_url("https:///x", false).is_err());
        assert!(check_url("${URL}", true).is_ok());
    }
}
