//! The MCP configs users already have, detected by content (not by file name): one file per
//! format ([`FORMATS`]: `mcp_servers.rs` for `mcpServers`, `vscode.rs` for `servers`) says how to
//! recognise it, where its servers are and what to call it; reading a server entry is shared,
//! and every value goes through the one builder both front ends feed (`../build.rs`). JSONC
//! (comments and trailing commas) is accepted everywhere.
//!
//! VS Code's `envFile` (dotenv) is read. Keys that only matter to the editor (`disabled`,
//! `autoApprove`, ...) are skipped with a warning; settings that mcp-pin adds (probe, rules,
//! ignores) take their defaults.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::build::{self, Written};
use super::expand::{Dialect, EnvFn};
use super::{
    base_dir, valid_server_name, Config, ConfigError, Format, Http, Loaded, ProbePolicy, ServerConfig, Stdio,
    Transport, DEFAULT_TIMEOUT,
};

mod mcp_servers;
mod vscode;

/// A client config format: how to recognise a document of it and where its servers are.
pub(crate) struct ClientFormat {
    pub format: Format,
    /// The top-level key of its server table, as messages name it.
    pub key: &'static str,
    /// The server table, if the document is of this format.
    pub servers: fn(&Map<String, Value>) -> Option<&Value>,
    /// What to call a file of this format, from its folder's and its own name.
    pub source: fn(folder: &str, file: &str) -> String,
    /// The clients that write it, for the message about a file of no known format.
    pub clients: &'static str,
    /// The client that reads a file of this format, from its folder's and its own name: mcp-pin
    /// presents itself as that client to the file's servers.
    pub client: fn(folder: &str, file: &str) -> crate::config::Client,
}

/// Every client format, tried in order: the first whose server table is found reads the file.
pub(crate) const FORMATS: &[ClientFormat] = &[mcp_servers::FORMAT, vscode::FORMAT];

/// The files looked for, in order, when no `--config` is given.
pub const DISCOVER_ORDER: &[&str] = &["mcp-pin.toml", ".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"];

/// The config file to use in `dir` when none is given: `mcp-pin.toml`, then `.mcp.json`,
/// `.vscode/mcp.json`, `.cursor/mcp.json`. The caller should say which one it used.
pub fn discover(dir: &Path) -> Option<PathBuf> {
    DISCOVER_ORDER.iter().map(|f| dir.join(f)).find(|p| p.is_file())
}

/// Whether the text is JSON(C) rather than TOML: its first significant character is `{`.
pub fn looks_like_json(text: &str) -> bool {
    let stripped = strip_jsonc(text);
    stripped.trim_start().starts_with('{')
}

/// Replace `//` and `/* */` comments and trailing commas with spaces, keeping every byte offset
/// (and so serde_json's line and column numbers) where it was.
pub fn strip_jsonc(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_str = false;
    // Index of the last comma seen outside a string with only whitespace/comments after it.
    let mut pending_comma: Option<usize> = None;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                pending_comma = None;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                out[i] = b' ';
                out[i + 1] = b' ';
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    if b[i] != b'\n' {
                        out[i] = b' ';
                    }
                    i += 1;
                }
                if i < b.len() {
                    out[i] = b' ';
                    out[i + 1] = b' ';
                    i += 2;
                }
            }
            b',' => {
                pending_comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(p) = pending_comma.take() {
                    out[p] = b' ';
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                pending_comma = None;
                i += 1;
            }
        }
    }
    // Only ASCII bytes were replaced (by ASCII spaces), so this stays valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Parse a client config (JSON/JSONC) read from `path`.
/// `only`: resolve `${VAR}` for these servers only; the others are read in template mode.
pub fn parse(
    text: &str,
    path: &Path,
    env: Option<EnvFn<'_>>,
    only: Option<&BTreeSet<String>>,
) -> Result<Loaded, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid { path: path.to_path_buf(), message };
    let stripped = strip_jsonc(text);
    // Each key once: a second `"github"` server would otherwise replace the first unseen.
    let root: Value = crate::json_read::from_str(&stripped).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        ConfigError::At {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: format!("invalid JSON: {msg}"),
        }
    })?;
    let Value::Object(root) = root else {
        return Err(invalid("expected a JSON object at the top".into()));
    };

    let folder = path.parent().unwrap_or(Path::new("."));
    let folder_name = folder.file_name().and_then(|s| s.to_str()).unwrap_or("");
    // `.vscode/mcp.json` and `.cursor/mcp.json` describe the folder that holds `.vscode`/`.cursor`.
    let dir = if folder_name == ".vscode" || folder_name == ".cursor" {
        base_dir(folder.parent().unwrap_or(Path::new(".")))
    } else {
        base_dir(folder)
    };
    let file_name = path.file_name().and_then(|s| s.to_str()).unwrap_or("");

    let Some((client, servers)) = FORMATS.iter().find_map(|f| (f.servers)(&root).map(|s| (f, s))) else {
        let known: Vec<String> = FORMATS.iter().map(|f| format!("`{}` ({})", f.key, f.clients)).collect();
        return Err(invalid(format!(
            "this JSON file has no server table of a client config mcp-pin reads ({}); is it an MCP client config?",
            known.join(", ")
        )));
    };
    let (format, source) = (client.format, (client.source)(folder_name, file_name));
    let Value::Object(servers) = servers else {
        return Err(invalid(format!("`{}` must be an object of servers by name", client.key)));
    };

    let presents = (client.client)(folder_name, file_name);
    let cx = Cx { path, dir: dir.clone(), env, env_files: Default::default(), client: presents };
    let mut warnings = Vec::new();
    let mut skipped = Vec::new();
    let mut config = Config { path: Some(path.to_path_buf()), dir, ..Config::default() };
    // Every server's problems, reported together (a run fixes them all at once, not one per push).
    let mut errors: Vec<ConfigError> = vec![];
    for (name, entry) in servers {
        // A server this run does not contact reads no variable (and no envFile).
        let skip = only.is_some_and(|o| !o.contains(name));
        let unresolved = Cx { path, dir: cx.dir.clone(), env: None, env_files: Default::default(), client: presents };
        let server = if skip { &unresolved } else { &cx };
        match server.server(name, entry, &mut warnings, &mut skipped) {
            Ok(Some(server)) => {
                config.servers.insert(name.clone(), server);
            }
            Ok(None) => {}
            // Point at the server's entry when it can be found.
            Err(ConfigError::Invalid { path, message }) => errors.push(match key_position(&stripped, name) {
                Some((line, column)) => ConfigError::At { path, line, column, message },
                None => ConfigError::Invalid { path, message },
            }),
            Err(other) => errors.push(other),
        }
        if let Some(f) = unresolved.env_files.take().remove(name) {
            cx.env_files.borrow_mut().insert(name.clone(), f);
        }
    }
    if let Some(e) = ConfigError::gather(errors) {
        return Err(e);
    }
    if config.servers.is_empty() {
        let why = if skipped.is_empty() {
            String::new()
        } else {
            let each: Vec<String> = skipped.iter().map(|(n, why)| format!("`{n}`: {why}")).collect();
            format!(" that mcp-pin can reach (skipped {})", each.join("; "))
        };
        return Err(invalid(format!("no servers in `{}`{why}", client.key)));
    }
    let env_files = cx.env_files.take();
    Ok(Loaded { config, format, source, warnings, skipped, env_files })
}

/// `NAME=value` lines of a dotenv file (`#` comments, `export `, single or double quotes).
/// On a malformed line, its 1-based number (the line itself is never echoed: it holds secrets).
pub fn parse_dotenv(text: &str) -> Result<Vec<(String, String)>, usize> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        let Some((k, v)) = line.split_once('=') else {
            return Err(i + 1);
        };
        let k = k.trim();
        if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-') {
            return Err(i + 1);
        }
        let v = v.trim();
        let v = if let Some(q) = v.strip_prefix('"') {
            let Some(end) = q.rfind('"') else {
                return Err(i + 1);
            };
            q[..end].replace("\\n", "\n").replace("\\\"", "\"")
        } else if let Some(q) = v.strip_prefix('\'') {
            let Some(end) = q.rfind('\'') else {
                return Err(i + 1);
            };
            q[..end].to_string()
        } else {
            v.split(" #").next().unwrap_or("").trim_end().to_string()
        };
        out.push((k.to_string(), v));
    }
    Ok(out)
}

/// Line and column (1-based) of the first `"name":` key in (comment-stripped) JSON text.
fn key_position(text: &str, name: &str) -> Option<(usize, usize)> {
    let needle = serde_json::to_string(name).ok()?;
    let mut from = 0;
    while let Some(i) = text[from..].find(&needle) {
        let at = from + i;
        let rest = text[at + needle.len()..].trim_start();
        if rest.starts_with(':') {
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let col = before[before.rfind('\n').map_or(0, |j| j + 1)..].chars().count() + 1;
            return Some((line, col));
        }
        from = at + needle.len();
    }
    None
}

struct Cx<'a> {
    path: &'a Path,
    dir: PathBuf,
    env: Option<EnvFn<'a>>,
    /// Template mode: each server's `envFile`, as written (re-spelled for mcp-pin.toml).
    env_files: std::cell::RefCell<BTreeMap<String, String>>,
    /// The client whose config this is: mcp-pin presents itself as it ([`crate::config::identity`]).
    client: crate::config::Client,
}

/// The keys of a server entry mcp-pin reads besides `type`: the launch, its environment, its
/// headers. Their strings are expanded (`${VAR}`); keys are never expanded.
const SERVER_KEYS: [&str; 7] = ["command", "args", "env", "envFile", "cwd", "url", "headers"];

/// The strings of a server entry that are expanded ([`SERVER_KEYS`]); never the editor-only fields.
fn expanded_strings(e: &Map<String, Value>) -> impl Iterator<Item = &str> {
    SERVER_KEYS.into_iter().filter_map(|k| e.get(k)).flat_map(|v| match v {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        Value::Object(m) => m.values().filter_map(Value::as_str).collect(),
        _ => vec![],
    })
}

/// Keys other clients use that mcp-pin does not need.
const EDITOR_ONLY_KEYS: &[&str] = &[
    "disabled",
    "autoApprove",
    "alwaysAllow",
    "description",
    "timeout",
    "dev",
    "gallery",
    "version",
    "sandbox",
    "sandboxEnabled",
    "trust",
    "includeTools",
    "excludeTools",
    "name",
    "transportType",
    "oauth",
    "roots",
    "networkTimeout",
    "autoStart",
    "icon",
];

impl Cx<'_> {
    fn invalid(&self, message: String) -> ConfigError {
        ConfigError::Invalid { path: self.path.to_path_buf(), message }
    }

    fn string<'v>(&self, server: &str, key: &str, v: &'v Value) -> Result<&'v str, ConfigError> {
        v.as_str().ok_or_else(|| self.invalid(format!("server `{server}`: `{key}` must be a string")))
    }

    fn string_map(&self, server: &str, key: &str, v: &Value) -> Result<Vec<(String, String)>, ConfigError> {
        let Value::Object(m) = v else {
            return Err(self.invalid(format!("server `{server}`: `{key}` must be an object of strings")));
        };
        m.iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                // Clients pass numbers and booleans through as text; the value is never quoted.
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(self.invalid(format!("server `{server}`: `{key}.{k}` must be a string"))),
            })
            .collect()
    }

    fn server(
        &self,
        name: &str,
        entry: &Value,
        warnings: &mut Vec<String>,
        skipped: &mut Vec<(String, String)>,
    ) -> Result<Option<ServerConfig>, ConfigError> {
        let Value::Object(e) = entry else {
            return Err(self.invalid(format!("server `{name}` must be an object")));
        };
        if e.get("disabled").and_then(Value::as_bool) == Some(true) {
            warnings.push(format!("server `{name}` is disabled in this file: skipped"));
            return Ok(None);
        }
        if !valid_server_name(name) {
            return Err(self.invalid(format!(
                "invalid server name `{name}`: mcp-pin uses server names as lockfile keys, so they must be letters, digits, \
                 `_`, `.` and `-`; rename it here or write an mcp-pin.toml (`mcp-pin init`)"
            )));
        }
        for k in e.keys() {
            let known = k == "type" || SERVER_KEYS.contains(&k.as_str());
            if !known {
                let what = if EDITOR_ONLY_KEYS.contains(&k.as_str()) { "is editor-only" } else { "is unknown" };
                warnings.push(format!("server `{name}`: key `{k}` {what} to mcp-pin and is ignored"));
            }
        }
        // Under CI, every variable the run would have to allow, at once (`--allow-env A,B,C`).
        if let Some(env) = self.env {
            let refs = expanded_strings(e).flat_map(super::expand::client_refs).map(|r| (r.var, r.default));
            if let Some(e) = ConfigError::gather(ConfigError::not_allowed_of(self.path, name, env, refs)) {
                return Err(e);
            }
        }
        let ty = match e.get("type") {
            None => None,
            Some(Value::String(t)) => Some(t.as_str()),
            Some(_) => return Err(self.invalid(format!("server `{name}`: `type` must be a string"))),
        };
        let is_http = match ty {
            Some("stdio") => false,
            Some("http" | "streamable-http" | "streamableHttp" | "streamable_http") => true,
            Some("sse") => {
                // One server mcp-pin cannot reach does not make the rest of the file unreadable.
                let why =
                    "it uses `\"type\": \"sse\"`, the legacy HTTP+SSE transport, and mcp-pin speaks Streamable HTTP \
                           only; if the server also serves Streamable HTTP, set `\"type\": \"http\"` and its /mcp URL";
                warnings.push(format!("server `{name}` is skipped: {why}"));
                skipped.push((name.to_string(), why.to_string()));
                return Ok(None);
            }
            Some(other) => {
                return Err(self.invalid(format!(
                    "server `{name}`: unknown `type` \"{other}\": expected \"stdio\" or \"http\"{}",
                    super::hint(other, ["stdio", "http", "sse"])
                )))
            }
            None => match (e.contains_key("command"), e.contains_key("url")) {
                (true, true) => {
                    return Err(self.invalid(format!("server `{name}` has both `command` and `url`: keep one")))
                }
                (false, false) => {
                    return Err(self.invalid(format!(
                        "server `{name}` needs `command` (a stdio server) or `url` (a Streamable HTTP server)"
                    )))
                }
                (_, url) => url,
            },
        };
        let transport =
            if is_http { Transport::Http(self.http(name, e)?) } else { Transport::Stdio(self.stdio(name, e)?) };
        Ok(Some(ServerConfig {
            name: name.to_string(),
            transport,
            timeout: DEFAULT_TIMEOUT,
            max_tools: crate::config::DEFAULT_MAX_TOOLS,
            max_listing_bytes: crate::config::DEFAULT_MAX_LISTING_BYTES,
            client: self.client,
            client_capabilities: vec![],
            client_capabilities_set: false,
            client_set: false,
            probe: ProbePolicy::default(),
            tools: BTreeMap::new(),
        }))
    }

    /// The builder's view of this file (a JSON config has no spans: errors name file and server).
    fn with_source<T>(&self, f: impl FnOnce(&build::Source<'_>) -> T) -> T {
        let error = |_: &build::At, message: String| self.invalid(message);
        f(&build::Source {
            path: self.path,
            dir: &self.dir,
            env: self.env,
            dialect: Dialect::Client,
            error: &error,
            not_secret: &[],
        })
    }

    /// `key`'s string value, if set and not `null`.
    fn written(&self, name: &str, key: &str, e: &Map<String, Value>) -> Result<Option<Written>, ConfigError> {
        e.get(key).filter(|v| !v.is_null()).map(|v| Ok(Written::new(self.string(name, key, v)?, None))).transpose()
    }

    /// `key`'s object of strings (`env`, `headers`), if set and not `null`.
    fn written_map(
        &self,
        name: &str,
        key: &str,
        e: &Map<String, Value>,
    ) -> Result<Vec<(Written, Written)>, ConfigError> {
        let Some(v) = e.get(key).filter(|v| !v.is_null()) else { return Ok(vec![]) };
        Ok(self
            .string_map(name, key, v)?
            .into_iter()
            .map(|(k, v)| (Written::new(k, None), Written::new(v, None)))
            .collect())
    }

    fn stdio(&self, name: &str, e: &Map<String, Value>) -> Result<Stdio, ConfigError> {
        if e.contains_key("url") {
            return Err(self
                .invalid(format!("server `{name}` is a stdio server but has `url`: keep one of `command` and `url`")));
        }
        let Some(command) = self.written(name, "command", e)? else {
            return Err(self.invalid(format!("server `{name}` is a stdio server but has no `command`")));
        };
        let args = match e.get("args") {
            None | Some(Value::Null) => vec![],
            Some(Value::Array(items)) => items
                .iter()
                .map(|a| match a {
                    Value::String(s) => Ok(Written::new(s.clone(), None)),
                    Value::Number(n) => Ok(Written::new(n.to_string(), None)),
                    _ => Err(self.invalid(format!("server `{name}`: `args` must be an array of strings"))),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(self.invalid(format!("server `{name}`: `args` must be an array of strings"))),
        };
        let spec = build::StdioSpec {
            command,
            args,
            // VS Code `envFile`: a dotenv file; `env` entries win over it.
            env_file: self.written(name, "envFile", e)?.map(|w| (w, "envFile")),
            env: self.written_map(name, "env", e)?,
            cwd: self.written(name, "cwd", e)?,
            inherit_env: vec![],
        };
        let built = self.with_source(|src| build::stdio(src, name, spec))?;
        if let Some(t) = built.env_file_template {
            // Template mode (`init`): the file is named, not copied.
            self.env_files.borrow_mut().insert(name.to_string(), t);
        }
        Ok(built.stdio)
    }

    fn http(&self, name: &str, e: &Map<String, Value>) -> Result<Http, ConfigError> {
        if e.contains_key("command") {
            return Err(self.invalid(format!(
                "server `{name}` is an HTTP server but has `command`: keep one of `command` and `url`"
            )));
        }
        let Some(url) = self.written(name, "url", e)? else {
            return Err(self.invalid(format!("server `{name}` is an HTTP server but has no `url`")));
        };
        let spec = build::HttpSpec { url, headers: self.written_map(name, "headers", e)?, allow_redirects: vec![] };
        self.with_source(|src| build::http(src, name, spec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_jsonc_strip() {
        let src = "{\n  // c\n  \"a\": \"x // not a comment\", /* b */\n  \"b\": [1, 2,],\n}\n";
        let s = strip_jsonc(src);
        assert_eq!(s.len(), src.len());
        let v: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["a"], "x // not a comment");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
        let s2 = strip_jsonc("{\"a\": \"q\\\"/*\", \"b\": 1 /* , */ ,\n // x\n }");
        let v: Value = serde_json::from_str(&s2).unwrap();
        assert_eq!(v["a"], "q\"/*");
    }

    #[test]
    fn config_dotenv() {
        let env =
            parse_dotenv("# c\nA=1\nexport B = two words # note\nC=\"q \\\"x\\\" #1\"\nD='$raw'\n\nE=\n").unwrap();
        assert_eq!(
            env,
            [("A", "1"), ("B", "two words"), ("C", "q \"x\" #1"), ("D", "$raw"), ("E", "")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(parse_dotenv("A=1\nnot a pair\n"), Err(2));
        assert_eq!(parse_dotenv("A=\"unterminated\n"), Err(1));
    }

    #[test]
    fn config_detect_json() {
        assert!(looks_like_json("  {\"mcpServers\": {}}"));
        assert!(looks_like_json("// header\n{\"servers\": {}}"));
        assert!(!looks_like_json("[servers.x]\ncommand = \"a\""));
        assert!(!looks_like_json("# { not json\n[servers.x]"));
    }
}
