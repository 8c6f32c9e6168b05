//! `mcp-pin.toml`: parsed into a spanned tree (`toml::de::DeTable`) and walked by hand, so every
//! error names the file, line and column, and unknown keys get a "did you mean" hint.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ::toml::de::{DeString, DeTable, DeValue};
use ::toml::Spanned;

use super::build::{self, Written};
use super::expand::{Dialect, EnvFn, Expanded};
use super::{
    base_dir, hint, valid_server_name, Config, ConfigError, Http, Ignore, ProbePolicy, ProxyPolicy, ServerConfig,
    Stdio, ToolConfig, Transport, DEFAULT_TIMEOUT,
};
use crate::rules::Class;
use crate::rules::RuleId;

type Key<'i> = Spanned<DeString<'i>>;
type Val<'i> = Spanned<DeValue<'i>>;

const TOP_KEYS: &[&str] = &["servers", "rules", "ignore", "proxy"];
const STDIO_KEYS: &[&str] = &["command", "args", "env", "env_file", "inherit_env", "cwd"];
const HTTP_KEYS: &[&str] = &["url", "headers", "allow_redirects", "oauth"];
const COMMON_KEYS: &[&str] =
    &["timeout", "max_tools", "max_listing_bytes", "client", "client_capabilities", "probe", "tools", "not_secret"];
const TOOL_KEYS: &[&str] = &["args", "probe"];
const IGNORE_KEYS: &[&str] = &["rule", "server", "tool", "pointer", "reason", "until"];
const PROXY_KEYS: &[&str] = &["new_tools", "unpinned", "allow"];
const PROXY_ALLOW_KEYS: &[&str] = &["rule", "server", "tool", "reason", "until"];
pub const CLIENT_CAPABILITIES: &[&str] = &["elicitation", "roots", "sampling"];
const PROBE_VALUES: &[&str] = &["sandbox", "read-only", "all", "none"];
const CLASSES: &[&str] = &["silent", "loud", "cosmetic"];

/// Parse `mcp-pin.toml` text read from `path`.
/// `only`: resolve `${VAR}` for these servers only; the others are read in template mode.
pub fn parse(
    text: &str,
    path: &Path,
    env: Option<EnvFn<'_>>,
    only: Option<&BTreeSet<String>>,
) -> Result<Config, ConfigError> {
    let dir = base_dir(path.parent().unwrap_or(Path::new(".")));
    let cx = Ctx { path, src: text, dir: dir.clone(), env };
    let doc = DeTable::parse(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let mut message = e.message().trim_end().to_string();
        // The parser says "duplicate key" and points at it: name it.
        if message.starts_with("duplicate key") {
            if let Some(key) = text.get(span.clone()).map(str::trim).filter(|k| !k.is_empty() && !k.contains('\n')) {
                message = format!("duplicate key `{key}`: a key may be defined once");
            }
        }
        cx.at(span, format!("invalid TOML: {message}"))
    })?;
    // The same document as plain values, for tool argument fixtures.
    let plain: ::toml::Table = ::toml::from_str(text).map_err(|e| cx.at(e.span().unwrap_or(0..0), e.message()))?;

    let mut config = Config { path: Some(path.to_path_buf()), dir, ..Config::default() };
    let root = doc.get_ref();

    // Every problem of the file is gathered and reported at once (each server's, each table's).
    let mut errors: Vec<ConfigError> = vec![];
    // Every server the file declares, read or not: `[[ignore]] server = ...` is checked against them.
    let mut names: BTreeSet<String> = BTreeSet::new();
    // Servers first.
    let mut servers_seen = false;
    for (k, v) in root.iter() {
        match k.get_ref().as_ref() {
            "servers" => {
                servers_seen = true;
                let table = cx.table(v, "`servers`")?;
                if table.is_empty() {
                    return Err(cx.at(k.span(), "`servers` is empty: add a `[servers.NAME]` table"));
                }
                for (name, sv) in table.iter() {
                    let plain_server = plain.get("servers").and_then(|s| s.get(name.get_ref().as_ref()));
                    // A server this run does not contact reads no variable.
                    let skip = only.is_some_and(|o| !o.contains(name.get_ref().as_ref()));
                    names.insert(name.get_ref().to_string());
                    let server = if skip {
                        Ctx { env: None, dir: cx.dir.clone(), ..cx }.server(name, sv, plain_server)
                    } else {
                        cx.server(name, sv, plain_server)
                    };
                    match server {
                        Ok(server) => {
                            config.servers.insert(server.name.clone(), server);
                        }
                        Err(e) => errors.push(e),
                    }
                }
            }
            "rules" | "ignore" | "proxy" => {}
            other => errors.push(cx.unknown(k, other, "the top level", TOP_KEYS)),
        }
    }
    if !servers_seen {
        // After what was found (a misspelled `[server.a]` names the fix first).
        errors.push(cx.at(0..0, "no servers: add a `[servers.NAME]` table with `command` (stdio) or `url` (HTTP)"));
        return Err(ConfigError::gather(errors).unwrap_or_else(|| cx.at(0..0, "no servers")));
    }
    if let Some((_, v)) = root.get_key_value("rules") {
        cx.rules(v).map(|r| config.rules = r).unwrap_or_else(|e| errors.push(e));
    }
    if let Some((k, v)) = root.get_key_value("ignore") {
        cx.ignores(k, v, &names, "ignore", IGNORE_KEYS).map(|i| config.ignores = i).unwrap_or_else(|e| errors.push(e));
    }
    if let Some((_, v)) = root.get_key_value("proxy") {
        cx.proxy(v, &names).map(|p| config.proxy = p).unwrap_or_else(|e| errors.push(e));
    }
    match ConfigError::gather(errors) {
        Some(e) => Err(e),
        None => Ok(config),
    }
}

/// The value of `r`, or `default` with its error kept in `errors` (a server's keys are each
/// checked, whatever another one's problem).
fn keep<T>(errors: &mut Vec<ConfigError>, r: Result<T, ConfigError>, default: T) -> T {
    r.unwrap_or_else(|e| {
        errors.push(e);
        default
    })
}

/// Every string of a value (a server's table, its arrays, its nested tables).
fn strings_in<'v>(v: &'v DeValue<'_>, out: &mut Vec<&'v str>) {
    match v {
        DeValue::String(s) => out.push(s.as_ref()),
        DeValue::Array(a) => a.iter().for_each(|x| strings_in(x.get_ref(), out)),
        DeValue::Table(t) => t.iter().for_each(|(_, x)| strings_in(x.get_ref(), out)),
        _ => {}
    }
}

struct Ctx<'a> {
    path: &'a Path,
    src: &'a str,
    dir: PathBuf,
    env: Option<EnvFn<'a>>,
}

fn kind(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date/time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

impl<'a> Ctx<'a> {
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.src.len());
        let before = &self.src[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[line_start..].chars().count() + 1)
    }

    fn at(&self, span: Range<usize>, message: impl Into<String>) -> ConfigError {
        let (line, column) = self.line_col(span.start);
        ConfigError::At { path: self.path.to_path_buf(), line, column, message: message.into() }
    }

    fn unknown(&self, key: &Key<'_>, name: &str, place: &str, allowed: &[&str]) -> ConfigError {
        let h = hint(name, allowed.iter().copied());
        let tail = if h.is_empty() { format!("; expected one of: {}", allowed.join(", ")) } else { h };
        self.at(key.span(), format!("unknown key `{name}` in {place}{tail}"))
    }

    fn table<'v, 'i>(&self, v: &'v Val<'i>, what: &str) -> Result<&'v DeTable<'i>, ConfigError> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            other => Err(self.at(v.span(), format!("{what} must be a table, found {}", kind(other)))),
        }
    }

    fn string<'v>(&self, v: &'v Val<'_>, what: &str) -> Result<&'v str, ConfigError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.as_ref()),
            other => Err(self.at(v.span(), format!("{what} must be a string, found {}", kind(other)))),
        }
    }

    fn strings(&self, v: &Val<'_>, what: &str) -> Result<Vec<(String, Range<usize>)>, ConfigError> {
        let DeValue::Array(items) = v.get_ref() else {
            return Err(self.at(v.span(), format!("{what} must be an array of strings, found {}", kind(v.get_ref()))));
        };
        items
            .iter()
            .map(|item| match item.get_ref() {
                DeValue::String(s) => Ok((s.to_string(), item.span())),
                other => {
                    Err(self
                        .at(item.span(), format!("{what} must be an array of strings, found {} in it", kind(other))))
                }
            })
            .collect()
    }

    /// `${VAR}` expansion with errors mapped to the file (the builder's, at this span).
    fn expand(&self, server: &str, s: &str, span: Range<usize>, what: &str) -> Result<Expanded, ConfigError> {
        self.with_source(|src| src.expand(server, &Written::new(s, Some(span)), what))
    }

    fn server(&self, name: &Key<'_>, v: &Val<'_>, plain: Option<&::toml::Value>) -> Result<ServerConfig, ConfigError> {
        let n = name.get_ref().as_ref();
        if !valid_server_name(n) {
            return Err(
                self.at(name.span(), format!("invalid server name `{n}`: use letters, digits, `_`, `.` and `-`"))
            );
        }
        let place = format!("[servers.{n}]");
        let t = self.table(v, &format!("server `{n}`"))?;
        let mut errs: Vec<ConfigError> = vec![];
        let mut fields: BTreeMap<&str, (&Key<'_>, &Val<'_>)> = BTreeMap::new();
        for (k, fv) in t.iter() {
            let key = k.get_ref().as_ref();
            let all = STDIO_KEYS.iter().chain(HTTP_KEYS).chain(COMMON_KEYS);
            match all.copied().find(|a| *a == key) {
                Some(a) => {
                    fields.insert(a, (k, fv));
                }
                None if key == "type" || key == "transport" => {
                    errs.push(self.at(
                        k.span(),
                        format!(
                            "unknown key `{key}` in {place}: mcp-pin.toml needs no transport type: `command` makes a stdio \
                             server, `url` a Streamable HTTP server"
                        ),
                    ));
                }
                None => {
                    let allowed: Vec<&str> = STDIO_KEYS.iter().chain(HTTP_KEYS).chain(COMMON_KEYS).copied().collect();
                    errs.push(self.unknown(k, key, &place, &allowed));
                }
            }
        }
        // Under CI, every variable the run would have to allow, at once (`--allow-env A,B,C`).
        if let Some(env) = self.env {
            let mut texts: Vec<&str> = vec![];
            for (key, (_, fv)) in &fields {
                if !matches!(*key, "tools" | "inherit_env") {
                    strings_in(fv.get_ref(), &mut texts);
                }
            }
            let mut refs: Vec<(String, Option<String>)> =
                texts.iter().flat_map(|t| super::expand::template_refs(t)).collect();
            if let Some((_, iv)) = fields.get("inherit_env") {
                let mut names = vec![];
                strings_in(iv.get_ref(), &mut names);
                refs.extend(names.into_iter().map(|v| (v.to_string(), None)));
            }
            errs.extend(ConfigError::not_allowed_of(self.path, n, env, refs));
        }
        let transport = (|| -> Result<Transport, ConfigError> {
            Ok(match (fields.get("command"), fields.get("url")) {
                (Some(_), Some((uk, _))) => {
                    return Err(self
                        .at(uk.span(), format!("server `{n}` has both `command` (stdio) and `url` (HTTP): keep one")))
                }
                (None, None) => {
                    return Err(self.at(
                        name.span(),
                        format!("server `{n}` needs `command` (a stdio server) or `url` (a Streamable HTTP server)"),
                    ))
                }
                (Some(_), None) => {
                    if let Some((k, _)) = HTTP_KEYS.iter().find_map(|h| fields.get(h)) {
                        return Err(self.at(
                        k.span(),
                        format!(
                            "`{}` is for HTTP servers (`url`); server `{n}` is a stdio server (`command`): use `env` to pass secrets",
                            k.get_ref()
                        ),
                    ));
                    }
                    Transport::Stdio(self.stdio(n, &fields)?)
                }
                (None, Some(_)) => {
                    if let Some((k, _)) = STDIO_KEYS.iter().find_map(|h| fields.get(h)) {
                        return Err(self.at(
                        k.span(),
                        format!(
                            "`{}` is for stdio servers (`command`); server `{n}` is an HTTP server (`url`): use `headers` to pass secrets",
                            k.get_ref()
                        ),
                    ));
                    }
                    Transport::Http(self.http(n, &fields)?)
                }
            })
        })();
        let transport = match transport {
            Ok(t) => Some(t),
            Err(e) => {
                errs.push(e);
                None
            }
        };

        let timeout = (|| -> Result<Duration, ConfigError> {
            Ok(match fields.get("timeout") {
                None => DEFAULT_TIMEOUT,
                Some((_, tv)) => {
                    let s = match tv.get_ref() {
                        DeValue::String(s) => s.as_ref(),
                        DeValue::Integer(i) => {
                            return Err(self.at(
                                tv.span(),
                                format!(
                                    "`timeout` must be a string with a unit, e.g. \"{}s\" or \"500ms\"",
                                    i.as_str()
                                ),
                            ))
                        }
                        other => {
                            return Err(self.at(tv.span(), format!("`timeout` must be a string, found {}", kind(other))))
                        }
                    };
                    parse_duration(s)
                        .map_err(|m| self.at(tv.span(), format!("server `{n}`: invalid `timeout` \"{s}\": {m}")))?
                }
            })
        })();
        let timeout = keep(&mut errs, timeout, DEFAULT_TIMEOUT);

        let max_tools = (|| -> Result<usize, ConfigError> {
            Ok(match fields.get("max_tools") {
                None => super::DEFAULT_MAX_TOOLS,
                Some((_, mv)) => match mv.get_ref() {
                    DeValue::Integer(i) => match i.as_str().parse::<usize>() {
                        Ok(n) if n > 0 => n,
                        _ => {
                            return Err(self
                                .at(mv.span(), format!("server `{n}`: `max_tools` must be a positive whole number")))
                        }
                    },
                    other => {
                        return Err(self.at(
                            mv.span(),
                            format!("server `{n}`: `max_tools` must be a number, found {}", kind(other)),
                        ))
                    }
                },
            })
        })();
        let max_tools = keep(&mut errs, max_tools, super::DEFAULT_MAX_TOOLS);

        let client_set = fields.contains_key("client");
        let client = (|| -> Result<super::Client, ConfigError> {
            Ok(match fields.get("client") {
                None => super::Client::default(),
                Some((_, cv)) => match cv.get_ref() {
                    DeValue::String(s) => super::Client::from_key(s.as_ref()).ok_or_else(|| {
                        let h = hint(s.as_ref(), super::Client::keys());
                        let keys: Vec<String> = super::Client::keys().map(|k| format!("\"{k}\"")).collect();
                        self.at(
                            cv.span(),
                            format!("server `{n}`: unknown `client` \"{s}\": expected {}{h}", keys.join(", ")),
                        )
                    })?,
                    other => {
                        return Err(self
                            .at(cv.span(), format!("server `{n}`: `client` must be a string, found {}", kind(other))))
                    }
                },
            })
        })();
        let client = keep(&mut errs, client, super::Client::default());

        let max_listing_bytes = match fields.get("max_listing_bytes") {
            None => super::DEFAULT_MAX_LISTING_BYTES,
            Some((_, mv)) => {
                let parsed = match mv.get_ref() {
                    DeValue::Integer(i) => parse_size(i.as_str()),
                    DeValue::String(s) => parse_size(s.as_ref()),
                    other => Err(format!("must be a size, found {}", kind(other))),
                };
                keep(
                    &mut errs,
                    parsed.map_err(|m| self.at(mv.span(), format!("server `{n}`: invalid `max_listing_bytes`: {m}"))),
                    super::DEFAULT_MAX_LISTING_BYTES,
                )
            }
        };

        let mut client_capabilities = Vec::new();
        let client_capabilities_set = fields.contains_key("client_capabilities");
        if let Some((_, cv)) = fields.get("client_capabilities") {
            for (c, span) in keep(&mut errs, self.strings(cv, "`client_capabilities`"), vec![]) {
                if !CLIENT_CAPABILITIES.contains(&c.as_str()) {
                    let h = hint(&c, CLIENT_CAPABILITIES.iter().copied());
                    errs.push(self.at(
                        span,
                        format!(
                            "server `{n}`: unknown client capability `{c}`: expected one of: {}{h}",
                            CLIENT_CAPABILITIES.join(", ")
                        ),
                    ));
                    continue;
                }
                client_capabilities.push(c);
            }
            client_capabilities.sort();
            client_capabilities.dedup();
        }

        let probe = match fields.get("probe") {
            None => ProbePolicy::default(),
            Some((_, pv)) => keep(&mut errs, self.probe(pv, &format!("server `{n}`")), ProbePolicy::default()),
        };

        let mut tools = BTreeMap::new();
        if let Some((_, tv)) = fields.get("tools") {
            let t = keep(&mut errs, self.table(tv, &format!("`[servers.{n}.tools]`")).map(Some), None);
            for (tk, tval) in t.into_iter().flat_map(|t| t.iter()) {
                let tool = tk.get_ref().as_ref();
                if tool.is_empty() {
                    errs.push(self.at(tk.span(), format!("server `{n}`: empty tool name")));
                    continue;
                }
                let plain_tool = plain.and_then(|p| p.get("tools")).and_then(|t| t.get(tool));
                match self.tool(n, tool, tval, plain_tool) {
                    Ok(c) => {
                        tools.insert(tool.to_string(), c);
                    }
                    Err(e) => errs.push(e),
                }
            }
        }

        if let Some(e) = ConfigError::gather(errs) {
            return Err(e);
        }
        // Without an error gathered, the transport was read.
        let Some(transport) = transport else {
            return Err(self.at(name.span(), format!("server `{n}`: not read")));
        };
        Ok(ServerConfig {
            name: n.to_string(),
            transport,
            timeout,
            max_tools,
            max_listing_bytes,
            client,
            client_capabilities,
            client_capabilities_set,
            client_set,
            probe,
            tools,
        })
    }

    /// The builder's view of this file (errors at file:line:col).
    fn with_source<T>(&self, f: impl FnOnce(&build::Source<'_>) -> T) -> T {
        self.with_settings(&[], f)
    }

    /// [`Self::with_source`] for a server whose `not_secret` names these variables.
    fn with_settings<T>(&self, not_secret: &[String], f: impl FnOnce(&build::Source<'_>) -> T) -> T {
        let error = |at: &build::At, message: String| match at {
            Some(span) => self.at(span.clone(), message),
            None => ConfigError::Invalid { path: self.path.to_path_buf(), message },
        };
        f(&build::Source {
            path: self.path,
            dir: &self.dir,
            env: self.env,
            dialect: Dialect::McpPin,
            error: &error,
            not_secret,
        })
    }

    /// `not_secret = ["REGION", ...]`: variables whose values are settings, not secrets.
    fn not_secret(&self, n: &str, f: &BTreeMap<&str, (&Key<'_>, &Val<'_>)>) -> Result<Vec<String>, ConfigError> {
        let Some((_, v)) = f.get("not_secret") else { return Ok(vec![]) };
        let mut out = Vec::new();
        for (name, span) in self.strings(v, "`not_secret`")? {
            let ok = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ok {
                return Err(self.at(span, format!("server `{n}`: `not_secret` entry `{name}` is not a variable name")));
            }
            out.push(name);
        }
        Ok(out)
    }

    /// A string value with its span.
    fn written(&self, v: &Val<'_>, what: &str) -> Result<Written, ConfigError> {
        Ok(Written::new(self.string(v, what)?, Some(v.span())))
    }

    /// A table of strings (`env`, `headers`): (name, value) with their spans; `what` names an
    /// entry in the type error (`env.NAME`, `header NAME`).
    fn written_table(
        &self,
        n: &str,
        v: &Val<'_>,
        table: &str,
        what: impl Fn(&str) -> String,
    ) -> Result<Vec<(Written, Written)>, ConfigError> {
        let t = self.table(v, table)?;
        t.iter()
            .map(|(k, v)| {
                let key = k.get_ref().as_ref();
                // Never quote the value: it is usually a secret.
                let DeValue::String(s) = v.get_ref() else {
                    return Err(self.at(
                        v.span(),
                        format!("server `{n}`: {} must be a string, found {}", what(key), kind(v.get_ref())),
                    ));
                };
                Ok((Written::new(key, Some(k.span())), Written::new(s.as_ref(), Some(v.span()))))
            })
            .collect()
    }

    fn strings_written(&self, v: &Val<'_>, what: &str) -> Result<Vec<Written>, ConfigError> {
        Ok(self.strings(v, what)?.into_iter().map(|(s, span)| Written::new(s, Some(span))).collect())
    }

    fn stdio(&self, n: &str, f: &BTreeMap<&str, (&Key<'_>, &Val<'_>)>) -> Result<Stdio, ConfigError> {
        let (_, cv) = f["command"];
        let spec = build::StdioSpec {
            command: self.written(cv, "`command`")?,
            args: f.get("args").map(|(_, v)| self.strings_written(v, "`args`")).transpose()?.unwrap_or_default(),
            env_file: f
                .get("env_file")
                .map(|(_, v)| self.written(v, "`env_file`"))
                .transpose()?
                .map(|w| (w, "env_file")),
            env: f
                .get("env")
                .map(|(_, v)| self.written_table(n, v, "`env`", |k| format!("`env.{k}`")))
                .transpose()?
                .unwrap_or_default(),
            cwd: f.get("cwd").map(|(_, v)| self.written(v, "`cwd`")).transpose()?,
            inherit_env: f
                .get("inherit_env")
                .map(|(_, v)| self.strings_written(v, "`inherit_env`"))
                .transpose()?
                .unwrap_or_default(),
        };
        let not_secret = self.not_secret(n, f)?;
        Ok(self.with_settings(&not_secret, |src| build::stdio(src, n, spec))?.stdio)
    }

    fn http(&self, n: &str, f: &BTreeMap<&str, (&Key<'_>, &Val<'_>)>) -> Result<Http, ConfigError> {
        let (_, uv) = f["url"];
        let spec = build::HttpSpec {
            url: self.written(uv, "`url`")?,
            headers: f
                .get("headers")
                .map(|(_, v)| self.written_table(n, v, "`headers`", |k| format!("header `{k}`")))
                .transpose()?
                .unwrap_or_default(),
            allow_redirects: f
                .get("allow_redirects")
                .map(|(_, v)| self.strings_written(v, "`allow_redirects`"))
                .transpose()?
                .unwrap_or_default(),
        };
        let not_secret = self.not_secret(n, f)?;
        let built = self.with_settings(&not_secret, |src| build::http(src, n, spec))?;
        let oauth = match f.get("oauth") {
            None => None,
            Some((_, ov)) => {
                let t = self.table(ov, "`oauth`")?;
                let mut fields: BTreeMap<&str, (String, Range<usize>)> = BTreeMap::new();
                let mut dpop = false;
                const OAUTH_KEYS: &[&str] = &[
                    "client_id",
                    "client_secret",
                    "private_key",
                    "signing_algorithm",
                    "scope",
                    "issuer",
                    "grant",
                    "assertion",
                    "id_token",
                    "idp_token_endpoint",
                    "idp_client_id",
                    "idp_client_secret",
                    "dpop",
                ];
                for (k, v) in t.iter() {
                    let key = k.get_ref().as_ref();
                    if !OAUTH_KEYS.contains(&key) {
                        return Err(self.unknown(k, key, &format!("[servers.{n}.oauth]"), OAUTH_KEYS));
                    }
                    if key == "dpop" {
                        let DeValue::Boolean(b) = v.get_ref() else {
                            return Err(self.at(v.span(), format!("server `{n}`: `oauth.dpop` must be true or false")));
                        };
                        dpop = *b;
                        continue;
                    }
                    let DeValue::String(s) = v.get_ref() else {
                        return Err(self.at(v.span(), format!("server `{n}`: `oauth.{key}` must be a string")));
                    };
                    let x = self.expand(n, s, v.span(), &format!("`oauth.{key}`"))?;
                    fields.insert(OAUTH_KEYS.iter().find(|o| **o == key).copied().unwrap_or("?"), (x.value, v.span()));
                }
                // Credentials are secrets whether from `${VAR}` or written here.
                for k in ["client_secret", "private_key", "assertion", "id_token", "idp_client_secret"] {
                    if let (Some((v, _)), Some(_)) = (fields.get(k), self.env) {
                        crate::secrets::register_credential(v);
                    }
                }
                let get = |k: &str| fields.get(k).map(|(v, _)| v.clone());
                let grant_name = get("grant").unwrap_or_else(|| "client-credentials".into());
                let need = |k: &str| -> Result<String, ConfigError> {
                    get(k).ok_or_else(|| {
                        let what = match grant_name.as_str() {
                            "jwt-bearer" => "the jwt-bearer grant: assertion",
                            "enterprise-managed" => "the enterprise-managed grant: id_token, idp_token_endpoint, client_id and client_secret or private_key",
                            _ => "client credentials: client_id and client_secret",
                        };
                        self.at(ov.span(), format!("server `{n}`: `oauth` needs `{k}` ({what})"))
                    })
                };
                let https = |k: &str| -> Result<(), ConfigError> {
                    if let Some((i, span)) = fields.get(k) {
                        if !matches!(reqwest::Url::parse(i), Ok(u) if u.scheme() == "https" || u.host_str().is_some_and(|h| h == "127.0.0.1" || h == "localhost"))
                        {
                            return Err(
                                self.at(span.clone(), format!("server `{n}`: `oauth.{k}` must be an https:// URL"))
                            );
                        }
                    }
                    Ok(())
                };
                https("issuer")?;
                https("idp_token_endpoint")?;
                let private_key = get("private_key");
                if private_key.is_some() && fields.contains_key("client_secret") {
                    return Err(self.at(
                        ov.span(),
                        format!("server `{n}`: `oauth` has both `client_secret` and `private_key`: keep one"),
                    ));
                }
                if let Some((alg, span)) = fields.get("signing_algorithm") {
                    if !["ES256", "ES384", "RS256", "PS256", "EdDSA"].contains(&alg.as_str()) {
                        return Err(self.at(
                            span.clone(),
                            format!("server `{n}`: `oauth.signing_algorithm` `{alg}`: one of ES256, ES384, RS256, PS256, EdDSA"),
                        ));
                    }
                }
                // Keys that belong to one grant only are an error with another.
                let only = |keys: &[&str], grant: &str| -> Result<(), ConfigError> {
                    match keys.iter().find(|k| fields.contains_key(**k)) {
                        Some(k) if grant_name != grant => Err(self.at(
                            fields[k].1.clone(),
                            format!("server `{n}`: `oauth.{k}` is for `grant = \"{grant}\"`, not `{grant_name}`"),
                        )),
                        _ => Ok(()),
                    }
                };
                only(&["assertion"], "jwt-bearer")?;
                only(&["id_token", "idp_token_endpoint", "idp_client_id", "idp_client_secret"], "enterprise-managed")?;
                let grant = match grant_name.as_str() {
                    "client-credentials" => super::Grant::ClientCredentials,
                    "jwt-bearer" => super::Grant::JwtBearer { assertion: need("assertion")? },
                    "enterprise-managed" => super::Grant::EnterpriseManaged {
                        id_token: need("id_token")?,
                        idp_token_endpoint: need("idp_token_endpoint")?,
                        idp_client_id: get("idp_client_id"),
                        idp_client_secret: get("idp_client_secret"),
                    },
                    other => {
                        return Err(self.at(
                            fields["grant"].1.clone(),
                            format!("server `{n}`: `oauth.grant` `{other}`: one of client-credentials, jwt-bearer, enterprise-managed"),
                        ))
                    }
                };
                // Client authentication is optional with a JWT-bearer assertion (RFC 7523 §3.1).
                let optional_client = matches!(grant, super::Grant::JwtBearer { .. });
                let client_id = if optional_client { get("client_id").unwrap_or_default() } else { need("client_id")? };
                let client_secret = match (&private_key, optional_client) {
                    (Some(_), _) => String::new(),
                    (None, true) => get("client_secret").unwrap_or_default(),
                    (None, false) => need("client_secret")?,
                };
                if optional_client && client_id.is_empty() && (private_key.is_some() || !client_secret.is_empty()) {
                    return Err(self.at(
                        ov.span(),
                        format!("server `{n}`: `oauth` has a client secret or key but no `client_id`"),
                    ));
                }
                Some(super::OAuth {
                    client_id,
                    client_secret,
                    private_key,
                    signing_algorithm: get("signing_algorithm"),
                    scope: get("scope"),
                    issuer: get("issuer"),
                    trust_discovered_issuer: false,
                    grant,
                    dpop,
                })
            }
        };
        Ok(Http { oauth, ..built })
    }

    fn probe(&self, v: &Val<'_>, whom: &str) -> Result<ProbePolicy, ConfigError> {
        let s = self.string(v, "`probe`")?;
        parse_probe(s).ok_or_else(|| {
            self.at(
                v.span(),
                format!(
                    "{whom}: invalid `probe` \"{s}\": expected \"sandbox\", \"read-only\", \"all\" or \"none\"{}",
                    hint(s, PROBE_VALUES.iter().copied())
                ),
            )
        })
    }

    fn tool(&self, n: &str, tool: &str, v: &Val<'_>, plain: Option<&::toml::Value>) -> Result<ToolConfig, ConfigError> {
        let t = self.table(v, &format!("`[servers.{n}.tools.{tool}]`"))?;
        let mut out = ToolConfig::default();
        for (k, fv) in t.iter() {
            match k.get_ref().as_ref() {
                "args" => {
                    self.table(fv, &format!("`[servers.{n}.tools.{tool}] args`"))?;
                    let plain_args = plain.and_then(|p| p.get("args"));
                    out.args = Some(match plain_args {
                        Some(a) => toml_to_json(a).map_err(|m| self.at(fv.span(), m))?,
                        None => serde_json::Value::Object(Default::default()),
                    });
                }
                "probe" => out.probe = Some(self.probe(fv, &format!("server `{n}` tool `{tool}`"))?),
                other => return Err(self.unknown(k, other, &format!("[servers.{n}.tools.{tool}]"), TOOL_KEYS)),
            }
        }
        Ok(out)
    }

    fn rules(&self, v: &Val<'_>) -> Result<BTreeMap<RuleId, Class>, ConfigError> {
        let t = self.table(v, "`[rules]`")?;
        let mut out = BTreeMap::new();
        for (k, cv) in t.iter() {
            let id = k.get_ref().as_ref();
            let rule: RuleId = id.parse().map_err(|_| self.at(k.span(), unknown_rule_message(id)))?;
            let s = self.string(cv, &format!("`[rules] {id}`"))?;
            let class = Class::parse(s).ok_or_else(|| {
                self.at(
                    cv.span(),
                    format!(
                        "rule `{id}`: invalid class \"{s}\": expected \"silent\", \"loud\" or \"cosmetic\"{}",
                        hint(s, CLASSES.iter().copied())
                    ),
                )
            })?;
            out.insert(rule, class);
        }
        Ok(out)
    }

    /// `[proxy]`: `new_tools`, `unpinned` and the `[[proxy.allow]]` exceptions.
    fn proxy(&self, v: &Val<'_>, servers: &BTreeSet<String>) -> Result<ProxyPolicy, ConfigError> {
        let t = self.table(v, "`[proxy]`")?;
        let mut out = ProxyPolicy::default();
        let choice = |fv: &Val<'_>, key: &str, values: [&str; 2]| -> Result<bool, ConfigError> {
            let s = self.string(fv, &format!("`[proxy] {key}`"))?;
            match values.iter().position(|x| *x == s) {
                Some(i) => Ok(i == 1),
                None => Err(self.at(
                    fv.span(),
                    format!(
                        "`[proxy] {key}` \"{s}\": expected \"{}\" or \"{}\"{}",
                        values[0],
                        values[1],
                        hint(s, values.iter().copied())
                    ),
                )),
            }
        };
        for (k, fv) in t.iter() {
            match k.get_ref().as_ref() {
                "new_tools" => out.hide_new_tools = choice(fv, "new_tools", ["serve", "hide"])?,
                "unpinned" => out.serve_unpinned = choice(fv, "unpinned", ["refuse", "serve"])?,
                "allow" => {
                    out.allow = self.ignores(k, fv, servers, "proxy.allow", PROXY_ALLOW_KEYS)?;
                    for (a, (_, item)) in out.allow.iter().zip(self.items(fv)) {
                        if a.rule.info().runtime != crate::rules::RunTime::BlockResult {
                            let blocked: Vec<&str> = crate::rules::blocked_results().map(|r| r.as_str()).collect();
                            return Err(self.at(
                                item,
                                format!(
                                    "`[[proxy.allow]]` names rule `{}`, which the proxy does not block (it blocks only {}); other rules are flagged, not blocked, and `[rules]` / `[[ignore]]` move them for `check` and the proxy alike",
                                    a.rule,
                                    blocked.join(", ")
                                ),
                            ));
                        }
                    }
                }
                other => return Err(self.unknown(k, other, "[proxy]", PROXY_KEYS)),
            }
        }
        Ok(out)
    }

    /// The spans of an array's items (for messages about one entry).
    fn items(&self, v: &Val<'_>) -> Vec<((), Range<usize>)> {
        match v.get_ref() {
            DeValue::Array(items) => items.iter().map(|i| ((), i.span())).collect(),
            _ => vec![],
        }
    }

    /// An array of tables shaped like `[[ignore]]` (`rule`, `server`, `tool`, `reason`, `until`,
    /// and for `[[ignore]]` `pointer`): `[[ignore]]` itself, and `[[proxy.allow]]`.
    fn ignores(
        &self,
        key: &Key<'_>,
        v: &Val<'_>,
        servers: &BTreeSet<String>,
        table: &str,
        keys: &[&str],
    ) -> Result<Vec<Ignore>, ConfigError> {
        let name = format!("[[{table}]]");
        let DeValue::Array(items) = v.get_ref() else {
            return Err(self.at(
                key.span(),
                format!("`{table}` must be an array of tables: write each entry as `{name}` (two brackets)"),
            ));
        };
        let mut out = Vec::new();
        for item in items.iter() {
            let DeValue::Table(t) = item.get_ref() else {
                return Err(
                    self.at(item.span(), format!("`{table}` entries must be tables, found {}", kind(item.get_ref())))
                );
            };
            let mut get: BTreeMap<&str, &Val<'_>> = BTreeMap::new();
            for (k, fv) in t.iter() {
                let key = k.get_ref().as_ref();
                match keys.iter().find(|a| **a == key) {
                    Some(a) => {
                        get.insert(a, fv);
                    }
                    None => return Err(self.unknown(k, key, &name, keys)),
                }
            }
            let opt = |name: &str| -> Result<Option<(String, Range<usize>)>, ConfigError> {
                get.get(name).map(|fv| Ok((self.string(fv, &format!("`{name}`"))?.to_string(), fv.span()))).transpose()
            };
            let Some((rule, rule_span)) = opt("rule")? else {
                return Err(self.at(item.span(), format!("`{name}` needs `rule` (the rule id it is for)")));
            };
            let rule: RuleId = rule.parse().map_err(|_| self.at(rule_span, unknown_rule_message(&rule)))?;
            let server = opt("server")?;
            if let Some((s, span)) = &server {
                if !servers.contains(s) {
                    return Err(self.at(
                        span.clone(),
                        format!(
                            "`{name}` names server `{s}`, which is not in `[servers]`{}",
                            hint(s, servers.iter().map(String::as_str))
                        ),
                    ));
                }
            }
            let tool = opt("tool")?;
            let pointer = opt("pointer")?;
            if let Some((p, span)) = &pointer {
                if !p.is_empty() && !p.starts_with('/') {
                    return Err(self.at(
                        span.clone(),
                        format!("`pointer` \"{p}\" is not a JSON pointer: it must start with `/`, e.g. \"/inputSchema/properties/city\""),
                    ));
                }
            }
            let reason = match opt("reason")? {
                Some((r, span)) if r.trim().is_empty() => {
                    return Err(self.at(span, "`reason` is empty: say why this change is accepted"))
                }
                Some((r, _)) => r,
                None => {
                    return Err(self.at(
                        item.span(),
                        format!("`{name}` for rule `{rule}` needs `reason`: say why this change is accepted"),
                    ))
                }
            };
            let until = match get.get("until") {
                None => None,
                Some(uv) => {
                    let s = match uv.get_ref() {
                        DeValue::String(s) => s.to_string(),
                        DeValue::Datetime(d) if d.time.is_none() && d.offset.is_none() => d.to_string(),
                        other => {
                            return Err(self.at(
                                uv.span(),
                                format!("`until` must be a date \"YYYY-MM-DD\", found {}", kind(other)),
                            ))
                        }
                    };
                    if !valid_date(&s) {
                        return Err(self.at(
                            uv.span(),
                            format!(
                                "`until` \"{s}\" is not a valid date: write it as \"YYYY-MM-DD\", e.g. \"2027-01-31\""
                            ),
                        ));
                    }
                    Some(s)
                }
            };
            out.push(Ignore {
                rule,
                server: server.map(|s| s.0),
                tool: tool.map(|s| s.0),
                pointer: pointer.map(|s| s.0),
                reason,
                until,
            });
        }
        Ok(out)
    }
}

fn unknown_rule_message(id: &str) -> String {
    let h = hint(id, crate::rules::RULES.iter().map(|r| r.id));
    format!("unknown rule id `{id}`{h} (`mcp-pin explain` lists the rules)")
}

/// A whole number and the unit after it (`"30s"`, `"64 MiB"`); `example` says what to write when
/// there is no number.
fn number_and_unit<'s>(s: &'s str, example: &str) -> Result<(u64, &'s str), String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(format!("expected a whole number{example}"));
    }
    Ok((num.parse().map_err(|_| "number too large".to_string())?, unit.trim()))
}

/// `"500ms"`, `"30s"`, `"2m"`, `"1h"`: a positive whole number and a unit.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let (n, unit) = number_and_unit(s, " and a unit: \"500ms\", \"30s\", \"2m\"")?;
    let d = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        "h" => Duration::from_secs(n.saturating_mul(3600)),
        "" => return Err(format!("missing unit: write \"{n}s\" or \"{n}ms\"")),
        u => return Err(format!("unknown unit `{u}`: use ms, s, m or h")),
    };
    if d.is_zero() {
        return Err("must be more than zero".into());
    }
    Ok(d)
}

/// A size in bytes: a whole number (bytes) with an optional unit, `KB`/`MB`/`GB` (10^3) or
/// `KiB`/`MiB`/`GiB` (2^10): `"64MiB"`, `"500 KB"`, `1048576`.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let (n, unit) = number_and_unit(s, " of bytes, or one with a unit: \"64MiB\", \"500KB\"")?;
    let n = usize::try_from(n).map_err(|_| "number too large".to_string())?;
    let scale: usize = match unit {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        u => return Err(format!("unknown unit `{u}`: use B, KB, MB, GB, KiB, MiB or GiB")),
    };
    match n.checked_mul(scale) {
        Some(0) => Err("must be more than zero".into()),
        Some(b) => Ok(b),
        None => Err("number too large".into()),
    }
}

pub fn parse_probe(s: &str) -> Option<ProbePolicy> {
    match s {
        "sandbox" => Some(ProbePolicy::Sandbox),
        "read-only" => Some(ProbePolicy::ReadOnly),
        "all" => Some(ProbePolicy::All),
        "none" => Some(ProbePolicy::None),
        _ => None,
    }
}

/// `YYYY-MM-DD` naming a real day.
pub fn valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: Range<usize>| {
        s[r.clone()].chars().all(|c| c.is_ascii_digit()).then(|| s[r.clone()].parse::<u32>().ok()).flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// A TOML value as JSON (dates become strings).
pub(crate) fn toml_to_json(v: &::toml::Value) -> Result<serde_json::Value, String> {
    use serde_json::Value as J;
    Ok(match v {
        ::toml::Value::String(s) => J::String(s.clone()),
        ::toml::Value::Integer(i) => J::from(*i),
        ::toml::Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(J::Number)
            .ok_or_else(|| format!("`args`: {f} cannot be written as JSON (nan and inf are not allowed)"))?,
        ::toml::Value::Boolean(b) => J::Bool(*b),
        ::toml::Value::Datetime(d) => J::String(d.to_string()),
        ::toml::Value::Array(a) => J::Array(a.iter().map(toml_to_json).collect::<Result<_, _>>()?),
        ::toml::Value::Table(t) => {
            J::Object(t.iter().map(|(k, v)| Ok((k.clone(), toml_to_json(v)?))).collect::<Result<_, String>>()?)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert!(parse_duration("30").unwrap_err().contains("missing unit"));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("1.5s").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("3 days").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn config_dates() {
        assert!(valid_date("2027-01-31"));
        assert!(valid_date("2028-02-29"));
        assert!(!valid_date("2027-02-29"));
        assert!(!valid_date("1900-02-29"));
        assert!(valid_date("2000-02-29"));
        assert!(!valid_date("2027-13-01"));
        assert!(!valid_date("2027-1-31"));
        assert!(!valid_date("2027/01/31"));
        assert!(!valid_date("2027-04-31"));
        assert!(!valid_date("2027-00-10"));
        assert!(!valid_date("+027-01-01"));
    }
}
