//! `mcp-pin init --wrap`: a client config (JSON or JSONC, any format of [`super::clients`])
//! rewritten so that each server the project's `mcp-pin.toml` defines runs through
//! `mcp-pin proxy --server NAME` instead of itself, and `--unwrap`, which puts the entries back.
//! Pure: text in, text out.
//!
//! - **In place.** Only the value of each wrapped entry is replaced; every other byte of the file
//!   (comments, key order, formatting, the other servers, VS Code's `inputs`) stays as it was.
//!   The replaced values are returned ([`Wrapped::originals`]) so that [`unwrap`] gives the file
//!   back byte for byte.
//! - **Where the config is.** A project's file names `mcp-pin.toml` the way its client resolves
//!   it in any clone: `${workspaceFolder}/mcp-pin.toml` (VS Code, Cursor), `mcp-pin.toml` relative
//!   to the project (Claude Code starts servers there); a user-level file, which nobody else
//!   reads, the absolute path ([`Target`]).
//! - **What the proxy needs.** The wrapped entry's `env` hands over exactly the variables the
//!   server's `mcp-pin.toml` section reads, in the client's own syntax ([`handover`]).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::expand::{client_refs, template_refs};
use super::{Client, ConfigError, ServerConfig, Transport};

/// Variables every client hands a server, the SDKs' small default environment included
/// (HOME, LOGNAME, PATH, SHELL, TERM, USER): never handed over by name.
pub const SMALL_ENV: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// Which file is wrapped, for whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The client that reads the file.
    pub client: Client,
    /// `Some(project folder)` for a file committed with a project (`.mcp.json`,
    /// `.vscode/mcp.json`, `.cursor/mcp.json` outside the home folder); `None` for a user-level
    /// file (`claude_desktop_config.json`, `~/.cursor/mcp.json`, ...), read on this machine only.
    pub project: Option<PathBuf>,
}

impl Target {
    /// The target of the client config at `path` (absolute), read as `format`, on a machine
    /// whose home folder is `home`.
    pub fn of(path: &Path, client: Client, home: Option<&Path>) -> Target {
        let folder = path.parent().unwrap_or(Path::new("/"));
        let folder_name = folder.file_name().and_then(|s| s.to_str()).unwrap_or("");
        let file = path.file_name().and_then(|s| s.to_str()).unwrap_or("");
        let project = match (folder_name, file) {
            (".vscode" | ".cursor", "mcp.json") => folder.parent().map(Path::to_path_buf),
            (_, ".mcp.json") => Some(folder.to_path_buf()),
            _ => None,
        };
        let project = project.filter(|p| home.is_none_or(|h| p != h));
        Target { client, project }
    }

    /// How this client spells "the environment variable V" in its config; `None`: it does not
    /// expand variables (Claude Desktop).
    pub fn env_ref(&self, var: &str) -> Option<String> {
        match self.client {
            Client::VsCode | Client::Cursor => Some(format!("${{env:{var}}}")),
            Client::ClaudeDesktop => None,
            Client::ClaudeCode | Client::McpPin => Some(format!("${{{var}}}")),
        }
    }

    /// The `--config` argument for `config` (absolute): what the client resolves in any clone.
    pub fn config_arg(&self, config: &Path) -> String {
        let rel = self.project.as_deref().and_then(|p| config.strip_prefix(p).ok());
        match (rel, self.client) {
            (Some(rel), Client::VsCode | Client::Cursor) => format!("${{workspaceFolder}}/{}", slashes(rel)),
            (Some(rel), _) => slashes(rel),
            (None, _) => config.display().to_string(),
        }
    }
}

fn slashes(p: &Path) -> String {
    p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

/// A rewritten client config.
#[derive(Debug, Clone, PartialEq)]
pub struct Wrapped {
    /// The whole file, each wrapped entry's value replaced, every other byte as it was.
    pub text: String,
    /// The servers now run through the proxy.
    pub wrapped: Vec<String>,
    /// Things worth a warning: servers left as they were.
    pub warnings: Vec<String>,
    /// Each replaced entry's value as it was written (for [`unwrap`]).
    pub originals: BTreeMap<String, String>,
    /// What each wrapped entry hands over: (variable, value in the client's syntax).
    pub handovers: BTreeMap<String, Vec<(String, String)>>,
    /// Variables a wrapped entry cannot hand over (the client expands none), by server.
    pub missing: BTreeMap<String, Vec<String>>,
}

/// What the wrapped entries run.
pub struct Proxy<'a> {
    /// The program: `mcp-pin` in a project's file, the running binary's absolute path in a
    /// user-level one.
    pub program: &'a str,
    /// The `--config` argument ([`Target::config_arg`]).
    pub config_arg: &'a str,
}

/// The keys of a server entry that say how to start or reach the server, or what its process
/// gets: replaced by the proxy's command and the variables `mcp-pin.toml` reads.
const HOW: &[&str] =
    &["command", "args", "cwd", "url", "serverUrl", "httpUrl", "headers", "type", "transport", "env", "envFile"];

/// Rewrite `text` (the client config at `path`): each server of `toml` (the servers of
/// `mcp-pin.toml`, template mode) becomes `PROGRAM --config CONFIG proxy --server NAME`, with
/// an `env` that hands over what its section reads. `client` is the client file read in
/// template mode (how each entry was written, for [`handover`]).
pub fn wrap(
    text: &str,
    path: &Path,
    target: &Target,
    toml: &BTreeMap<String, ServerConfig>,
    client: &BTreeMap<String, ServerConfig>,
    proxy: &Proxy<'_>,
) -> Result<Wrapped, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid { path: path.to_path_buf(), message };
    let table = locate(text).map_err(invalid)?;
    let mut out = Wrapped {
        text: String::new(),
        wrapped: vec![],
        warnings: vec![],
        originals: BTreeMap::new(),
        handovers: BTreeMap::new(),
        missing: BTreeMap::new(),
    };
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for entry in &table.entries {
        let name = &entry.name;
        let Ok(Value::Object(e)) = serde_json::from_str::<Value>(&table.stripped[entry.value.clone()]) else {
            continue;
        };
        if wrapped_server(&e).is_some() {
            continue;
        }
        let Some(server) = toml.get(name) else {
            out.warnings.push(format!(
                "server `{name}` is not in mcp-pin.toml; left as it is (add it there, `mcp-pin lock --server {name}`, then wrap again)"
            ));
            continue;
        };
        let (env, missing) = handover(server, client.get(name), &e, target);
        if !missing.is_empty() {
            out.missing.insert(name.clone(), missing);
        }
        let members = members(&table.stripped, entry.value.start).map_err(invalid)?;
        let new = entry_text(text, &table, entry, &members, target, proxy, name, &env);
        out.originals.insert(name.clone(), text[entry.value.clone()].to_string());
        out.handovers.insert(name.clone(), env);
        out.wrapped.push(name.clone());
        edits.push((entry.value.clone(), new));
    }
    out.text = splice(text, edits);
    Ok(out)
}

/// `--unwrap`: each wrapped entry of `text` whose value `originals` holds gets it back. Returns
/// the text, the servers restored, and the wrapped entries left (no original kept).
pub fn unwrap(
    text: &str,
    path: &Path,
    originals: &BTreeMap<String, String>,
) -> Result<(String, Vec<String>, Vec<String>), ConfigError> {
    let invalid = |message: String| ConfigError::Invalid { path: path.to_path_buf(), message };
    let table = locate(text).map_err(invalid)?;
    let (mut restored, mut left, mut edits) = (vec![], vec![], vec![]);
    for entry in &table.entries {
        let Ok(Value::Object(e)) = serde_json::from_str::<Value>(&table.stripped[entry.value.clone()]) else {
            continue;
        };
        if wrapped_server(&e).is_none() {
            continue;
        }
        match originals.get(&entry.name) {
            Some(o) => {
                edits.push((entry.value.clone(), o.clone()));
                restored.push(entry.name.clone());
            }
            None => left.push(entry.name.clone()),
        }
    }
    Ok((splice(text, edits), restored, left))
}

/// The names of the entries of a client config that run the proxy (`init --wrap` wrote them).
pub fn wrapped_entries(text: &str) -> BTreeSet<String> {
    let Ok(table) = locate(text) else { return BTreeSet::new() };
    table
        .entries
        .iter()
        .filter(|entry| {
            matches!(serde_json::from_str::<Value>(&table.stripped[entry.value.clone()]),
                Ok(Value::Object(e)) if wrapped_server(&e).is_some())
        })
        .map(|entry| entry.name.clone())
        .collect()
}

/// The server an entry relays through the proxy (`--server NAME`), if it runs the proxy: its
/// command is `mcp-pin` (a bare name or a path to it) and its arguments hold `proxy`.
pub fn wrapped_server(e: &serde_json::Map<String, Value>) -> Option<String> {
    let cmd = e.get("command").and_then(Value::as_str).unwrap_or("");
    let args: Vec<&str> = e
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let program = cmd.rsplit(['/', '\\']).next().unwrap_or(cmd);
    let program = program.strip_suffix(".exe").unwrap_or(program);
    if program != "mcp-pin" || !args.contains(&"proxy") {
        return None;
    }
    let at = args.iter().position(|a| *a == "--server")?;
    args.get(at + 1).map(|s| s.to_string())
}

/// What a wrapped entry hands the proxy: each variable `server` (its `mcp-pin.toml` section)
/// reads, with the value the client should give it, in the client's syntax; and the variables
/// it cannot hand over. In order of preference: the entry's own spelling of a reference to it
/// (`${input:notes-key}` for `MCP_PIN_INPUT_NOTES_KEY`, `${REGION:-eu}`), the value the entry
/// gave it in `env`, the literal secret `mcp-pin init` replaced by it, and the variable by name.
/// The small environment every client passes ([`SMALL_ENV`]) is not handed over.
pub fn handover(
    server: &ServerConfig,
    client: Option<&ServerConfig>,
    entry: &serde_json::Map<String, Value>,
    target: &Target,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut spellings: BTreeMap<String, String> = BTreeMap::new();
    let mut strings = Vec::new();
    collect_strings(&Value::Object(entry.clone()), &mut strings);
    for s in &strings {
        for r in client_refs(s) {
            spellings.entry(r.var).or_insert(r.spelling);
        }
    }
    let env: BTreeMap<&str, &str> = entry
        .get("env")
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| v.as_str().map(|v| (k.as_str(), v))).collect())
        .unwrap_or_default();
    let invented = client.map(|c| super::init::invented_vars(&c.name, c)).unwrap_or_default();
    let (mut out, mut missing) = (Vec::new(), Vec::new());
    for var in reads(server) {
        if SMALL_ENV.contains(&var.as_str()) {
            continue;
        }
        let value = spellings
            .get(&var)
            .cloned()
            .or_else(|| env.get(var.as_str()).map(|v| v.to_string()))
            .or_else(|| invented.get(&var).cloned())
            .or_else(|| target.env_ref(&var));
        match value {
            Some(v) => out.push((var, v)),
            None => missing.push(var),
        }
    }
    (out, missing)
}

/// Every variable a server's section reads, in order.
pub fn reads(server: &ServerConfig) -> Vec<String> {
    let mut templates: Vec<&str> = Vec::new();
    match &server.transport {
        Transport::Stdio(s) => {
            templates.push(&s.command_template);
            templates.extend(s.args_template.iter().map(String::as_str));
            templates.extend(s.cwd_template.as_deref());
            templates.extend(s.env.values().map(String::as_str));
            templates.extend(s.inherit_env.values().map(String::as_str));
        }
        Transport::Http(h) => {
            templates.push(&h.url_template);
            templates.extend(h.headers.values().map(String::as_str));
            if let Some(o) = &h.oauth {
                templates.extend([o.client_id.as_str(), o.client_secret.as_str()]);
                templates.extend([&o.private_key, &o.scope, &o.issuer].into_iter().flatten().map(String::as_str));
                match &o.grant {
                    super::Grant::JwtBearer { assertion } => templates.push(assertion),
                    super::Grant::EnterpriseManaged {
                        id_token,
                        idp_token_endpoint,
                        idp_client_id,
                        idp_client_secret,
                    } => {
                        templates.extend([id_token, idp_token_endpoint].map(String::as_str));
                        templates.extend([idp_client_id, idp_client_secret].into_iter().flatten().map(String::as_str));
                    }
                    _ => {}
                }
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for t in templates {
        for (v, _) in template_refs(t) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

/// The new value of a wrapped entry, indented as the file is: the client's type (VS Code),
/// the proxy's command, its `env`, then the entry's other keys as they were (`disabled`,
/// `autoApprove`, ...). One line when the original was one line.
#[allow(clippy::too_many_arguments)]
fn entry_text(
    text: &str,
    table: &Table,
    entry: &Entry,
    members: &[(String, Range<usize>)],
    target: &Target,
    proxy: &Proxy<'_>,
    name: &str,
    env: &[(String, String)],
) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut fields: Vec<(String, String)> = Vec::new();
    if target.client == Client::VsCode {
        fields.push(("type".into(), q("stdio")));
    }
    fields.push(("command".into(), q(proxy.program)));
    let args = ["--config", proxy.config_arg, "proxy", "--server", name];
    fields.push(("args".into(), format!("[{}]", args.map(q).join(", "))));
    let one_line = !text[entry.value.clone()].contains('\n');
    let indent = line_indent(text, entry.key_start);
    let unit = table.unit.as_str();
    if !env.is_empty() {
        let pairs: Vec<String> = env.iter().map(|(k, v)| format!("{}: {}", q(k), q(v))).collect();
        let value = if one_line || env.len() == 1 {
            format!("{{ {} }}", pairs.join(", "))
        } else {
            let inner = format!("{indent}{unit}{unit}");
            format!("{{\n{inner}{}\n{indent}{unit}}}", pairs.join(&format!(",\n{inner}")))
        };
        fields.push(("env".into(), value));
    }
    for (k, v) in members {
        if !HOW.contains(&k.as_str()) {
            fields.push((k.clone(), table.stripped[v.clone()].trim().to_string()));
        }
    }
    let members: Vec<String> = fields.iter().map(|(k, v)| format!("{}: {v}", q(k))).collect();
    if one_line {
        format!("{{ {} }}", members.join(", "))
    } else {
        let inner = format!("{indent}{unit}");
        format!("{{\n{inner}{}\n{indent}}}", members.join(&format!(",\n{inner}")))
    }
}

/// The leading whitespace of the line holding `at`.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..at].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// Replace each range by its text (ranges do not overlap).
fn splice(text: &str, mut edits: Vec<(Range<usize>, String)>) -> String {
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut out = text.to_string();
    for (r, new) in edits {
        out.replace_range(r, &new);
    }
    out
}

/// The server table of a client config, located in its text.
struct Table {
    /// The text with comments and trailing commas blanked (same offsets).
    stripped: String,
    entries: Vec<Entry>,
    /// One level of indentation in this file.
    unit: String,
}

struct Entry {
    name: String,
    /// Where the entry's key starts.
    key_start: usize,
    /// Its value (an object, from `{` to `}`).
    value: Range<usize>,
}

/// Find the server table (`mcpServers`, `servers`, or `mcp.servers`) as the readers do
/// ([`super::clients::FORMATS`], in order) and each entry's place in the text.
fn locate(text: &str) -> Result<Table, String> {
    let stripped = super::clients::strip_jsonc(text);
    let root: Value = serde_json::from_str(&stripped).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(top) = &root else {
        return Err("expected a JSON object at the top".into());
    };
    let format = super::clients::FORMATS
        .iter()
        .find(|f| (f.servers)(top).is_some())
        .ok_or_else(|| "no server table of a client config mcp-pin reads (`mcpServers`, `servers`)".to_string())?;
    let path: &[&str] = match format.format {
        super::Format::VsCode if !top.contains_key("servers") => &["mcp", "servers"],
        _ => &[format.key],
    };
    let start = skip_ws(&stripped, 0);
    let mut at = start;
    for key in path {
        let members = members(&stripped, at)?;
        let (_, v) = members.into_iter().find(|(k, _)| k == key).ok_or("the server table could not be found")?;
        at = v.start;
    }
    if stripped.as_bytes().get(at) != Some(&b'{') {
        return Err(format!("`{}` must be an object of servers by name", format.key));
    }
    let mut entries = Vec::new();
    for (name, value, key_start) in members_with_keys(&stripped, at)? {
        if stripped.as_bytes().get(value.start) == Some(&b'{') {
            entries.push(Entry { name, key_start, value });
        }
    }
    let unit = stripped
        .lines()
        .map(|l| l.chars().take_while(|c| *c == ' ' || *c == '\t').collect::<String>())
        .filter(|w| !w.is_empty())
        .min_by_key(String::len)
        .unwrap_or_else(|| "  ".to_string());
    Ok(Table { stripped, entries, unit })
}

/// The members of the object starting at `at` (its `{`): key and value range.
fn members(s: &str, at: usize) -> Result<Vec<(String, Range<usize>)>, String> {
    Ok(members_with_keys(s, at)?.into_iter().map(|(k, v, _)| (k, v)).collect())
}

fn members_with_keys(s: &str, at: usize) -> Result<Vec<(String, Range<usize>, usize)>, String> {
    let b = s.as_bytes();
    if b.get(at) != Some(&b'{') {
        return Err("expected an object".into());
    }
    let mut out = Vec::new();
    let mut i = skip_ws(s, at + 1);
    if b.get(i) == Some(&b'}') {
        return Ok(out);
    }
    loop {
        let key_start = i;
        let key_end = skip_value(s, i)?;
        let key: String = serde_json::from_str(&s[key_start..key_end]).map_err(|e| e.to_string())?;
        i = skip_ws(s, key_end);
        if b.get(i) != Some(&b':') {
            return Err("expected `:`".into());
        }
        let v_start = skip_ws(s, i + 1);
        let v_end = skip_value(s, v_start)?;
        out.push((key, v_start..v_end, key_start));
        i = skip_ws(s, v_end);
        match b.get(i) {
            Some(b',') => {
                i = skip_ws(s, i + 1);
                if b.get(i) == Some(&b'}') {
                    return Ok(out);
                }
            }
            Some(b'}') => return Ok(out),
            _ => return Err("expected `,` or `}`".into()),
        }
    }
}

fn skip_ws(s: &str, mut i: usize) -> usize {
    let b = s.as_bytes();
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The end of the JSON value starting at `i` (already valid JSON: serde parsed it).
fn skip_value(s: &str, i: usize) -> Result<usize, String> {
    let b = s.as_bytes();
    match b.get(i) {
        Some(b'"') => {
            let mut j = i + 1;
            while j < b.len() {
                match b[j] {
                    b'\\' => j += 2,
                    b'"' => return Ok(j + 1),
                    _ => j += 1,
                }
            }
            Err("unterminated string".into())
        }
        Some(b'{') | Some(b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_value(s, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            Err("unterminated object".into())
        }
        Some(_) => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !b[j].is_ascii_whitespace() {
                j += 1;
            }
            Ok(j)
        }
        None => Err("unexpected end".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, path: &str) -> BTreeMap<String, ServerConfig> {
        super::super::Config::parse_with(text, Path::new(path), None).unwrap().config.servers
    }

    #[test]
    fn wrapping_edits_entries_in_place_and_unwrapping_restores_every_byte() {
        let vscode = "{\n  // the team's servers\n  \"servers\": {\n    \"notes\": {\n      \"type\": \"stdio\", // local\n      \"command\": \"node\",\n      \"args\": [\"${workspaceFolder}/notes.js\"],\n      \"env\": { \"NOTES_KEY\": \"${input:notes-key}\" }\n    },\n    \"other\": { \"command\": \"x\" },\n  },\n  \"inputs\": [{ \"type\": \"promptString\", \"id\": \"notes-key\", \"password\": true }]\n}\n";
        let path = Path::new("/p/.vscode/mcp.json");
        let client = load(vscode, "/p/.vscode/mcp.json");
        let toml = load(
            "[servers.notes]\ncommand = \"node\"\nargs = [\"./notes.js\"]\n[servers.notes.env]\nNOTES_KEY = \"${MCP_PIN_INPUT_NOTES_KEY}\"\n",
            "/p/mcp-pin.toml",
        );
        let target = Target::of(path, Client::VsCode, Some(Path::new("/home/u")));
        assert_eq!(target.project.as_deref(), Some(Path::new("/p")));
        let arg = target.config_arg(Path::new("/p/mcp-pin.toml"));
        assert_eq!(arg, "${workspaceFolder}/mcp-pin.toml");
        let w = wrap(vscode, path, &target, &toml, &client, &Proxy { program: "mcp-pin", config_arg: &arg }).unwrap();
        assert_eq!(w.wrapped, ["notes"]);
        assert!(w.text.contains("// the team's servers") && w.text.contains("\"inputs\""), "{}", w.text);
        assert!(w.text.contains("\"other\": { \"command\": \"x\" },"), "{}", w.text);
        let v: Value = serde_json::from_str(&super::super::clients::strip_jsonc(&w.text)).unwrap();
        let e = &v["servers"]["notes"];
        assert_eq!(e["type"], "stdio");
        assert_eq!(e["command"], "mcp-pin");
        assert_eq!(
            e["args"],
            serde_json::json!(["--config", "${workspaceFolder}/mcp-pin.toml", "proxy", "--server", "notes"])
        );
        assert_eq!(e["env"], serde_json::json!({"MCP_PIN_INPUT_NOTES_KEY": "${input:notes-key}"}));
        assert_eq!(wrapped_entries(&w.text), BTreeSet::from(["notes".to_string()]));
        // Wrapping twice changes nothing.
        let again =
            wrap(&w.text, path, &target, &toml, &client, &Proxy { program: "mcp-pin", config_arg: &arg }).unwrap();
        assert_eq!(again.text, w.text);
        let (back, restored, left) = unwrap(&w.text, path, &w.originals).unwrap();
        assert_eq!(back, vscode);
        assert_eq!((restored, left), (vec!["notes".to_string()], vec![]));
    }

    #[test]
    fn an_oauth_server_hands_over_its_credentials() {
        let toml = load(
            "[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n[servers.docs.oauth]\nclient_id = \"${DOCS_ID}\"\nclient_secret = \"${DOCS_SECRET}\"\n",
            "/p/mcp-pin.toml",
        );
        assert_eq!(reads(&toml["docs"]), ["DOCS_ID", "DOCS_SECRET"]);
    }

    #[test]
    fn each_client_names_the_config_its_own_way() {
        let home = Some(Path::new("/home/u"));
        let cfg = Path::new("/p/mcp-pin.toml");
        let claude = Target::of(Path::new("/p/.mcp.json"), Client::ClaudeCode, home);
        assert_eq!(claude.config_arg(cfg), "mcp-pin.toml");
        assert_eq!(claude.env_ref("K").as_deref(), Some("${K}"));
        let cursor = Target::of(Path::new("/p/.cursor/mcp.json"), Client::Cursor, home);
        assert_eq!(cursor.config_arg(cfg), "${workspaceFolder}/mcp-pin.toml");
        assert_eq!(cursor.env_ref("K").as_deref(), Some("${env:K}"));
        // User-level files: the home folder's Cursor config, Claude Desktop's.
        let global = Target::of(Path::new("/home/u/.cursor/mcp.json"), Client::Cursor, home);
        assert_eq!(global.project, None);
        assert_eq!(global.config_arg(cfg), "/p/mcp-pin.toml");
        let desktop =
            Target::of(Path::new("/home/u/.config/Claude/claude_desktop_config.json"), Client::ClaudeDesktop, home);
        assert_eq!((desktop.project.clone(), desktop.env_ref("K")), (None, None));
    }
}
