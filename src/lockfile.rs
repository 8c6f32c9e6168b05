//! `mcp.lock`: the pinned surfaces, deterministic and reviewable, written atomically.
//!
//! See `docs/lockfile.md` for the format. The lock is JSON with sorted keys and two-space indent
//! (written by [`crate::json`]), servers and tools keyed (so sorted) by name, no timestamps, and
//! never a secret: how a server was reached is recorded without env or header values.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::config::{redact_url, ServerConfig, Transport};
use crate::surface::ServerSurface;

/// Version of the lockfile's structure. A lock with a higher version was written by a newer
/// mcp-pin and is refused with "upgrade".
pub const LOCKFILE_VERSION: u64 = 1;
/// Version of the canonical form of tool definitions. When a future mcp-pin changes how it
/// normalises, it reads older locks through the old form, so an unchanged server shows no drift.
pub const NORMALIZER_VERSION: u64 = 1;

#[derive(Debug, thiserror::Error)]
pub enum LockfileError {
    #[error("no lockfile at {path}")]
    Missing { path: PathBuf },
    #[error("cannot read lockfile {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("lockfile {path} is not valid JSON at line {line}, column {column}: {message}")]
    Syntax { path: PathBuf, line: usize, column: usize, message: String },
    #[error("lockfile {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("lockfile {path} has lockfileVersion {found}, newer than this mcp-pin supports ({supported}); upgrade mcp-pin")]
    TooNew { path: PathBuf, found: u64, supported: u64 },
    #[error("cannot write lockfile {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// One server's pinned entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerEntry {
    /// How the server was reached (command/args or URL; never a secret value).
    pub source: Value,
    /// Client capabilities declared when it was locked.
    pub client_capabilities: Vec<String>,
    pub surface: ServerSurface,
    /// Per-tool pinned result shapes from the probes.
    pub probes: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lockfile {
    pub normalizer_version: u64,
    pub servers: BTreeMap<String, ServerEntry>,
}

impl Lockfile {
    pub fn new() -> Lockfile {
        Lockfile { normalizer_version: NORMALIZER_VERSION, servers: BTreeMap::new() }
    }

    /// Read a lockfile. A missing file is `LockfileError::Missing`.
    pub fn read(path: &Path) -> Result<Lockfile, LockfileError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(LockfileError::Missing { path: path.to_path_buf() })
            }
            Err(source) => return Err(LockfileError::Io { path: path.to_path_buf(), source }),
        };
        Lockfile::parse(&text, path)
    }

    /// Parse lockfile text; `path` is only for messages.
    pub fn parse(text: &str, path: &Path) -> Result<Lockfile, LockfileError> {
        Lockfile::parse_filtered(text, path, &|_, _, _| true)
    }

    /// Parse lockfile text, keeping only the tools for which `keep(server, tool, raw_text)` is
    /// true (the others are not even built into a JSON tree). `mcp-pin diff` uses it to skip
    /// tools whose text is the same in both lockfiles.
    pub fn parse_filtered(
        text: &str,
        path: &Path,
        keep: &dyn Fn(&str, &str, &str) -> bool,
    ) -> Result<Lockfile, LockfileError> {
        use serde_json::value::RawValue;
        let invalid = |message: String| LockfileError::Invalid { path: path.to_path_buf(), message };
        let syntax = |e: serde_json::Error| LockfileError::Syntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string().split(" at line").next().unwrap_or("").to_string(),
        };
        // Values are parsed lazily from their raw text: a lock of thousands of tools is scanned
        // once and only what is needed becomes a tree.
        let top: BTreeMap<String, &RawValue> = serde_json::from_str(text).map_err(|e| {
            if e.is_data() {
                invalid("the top level is not an object".into())
            } else {
                syntax(e)
            }
        })?;
        let version = top
            .get("lockfileVersion")
            .and_then(|r| serde_json::from_str::<u64>(r.get()).ok())
            .ok_or_else(|| invalid("`lockfileVersion` is missing; is this an mcp-pin lockfile?".into()))?;
        if version > LOCKFILE_VERSION {
            return Err(LockfileError::TooNew {
                path: path.to_path_buf(),
                found: version,
                supported: LOCKFILE_VERSION,
            });
        }
        let normalizer_version = top
            .get("normalizerVersion")
            .and_then(|r| serde_json::from_str::<u64>(r.get()).ok())
            .unwrap_or(1);
        let mut servers = BTreeMap::new();
        let server_map: BTreeMap<String, &RawValue> = match top.get("servers") {
            None => BTreeMap::new(),
            Some(raw) => serde_json::from_str(raw.get()).map_err(|_| invalid("`servers` is not an object".into()))?,
        };
        for (name, entry) in server_map {
            let e: BTreeMap<String, &RawValue> = serde_json::from_str(entry.get())
                .map_err(|_| invalid(format!("server `{name}` is not an object")))?;
            let value = |key: &str| -> Value {
                e.get(key).and_then(|r| serde_json::from_str(r.get()).ok()).unwrap_or(Value::Null)
            };
            let tools = match e.get("tools") {
                None => BTreeMap::new(),
                Some(raw) => {
                    let m: BTreeMap<String, &RawValue> = serde_json::from_str(raw.get())
                        .map_err(|_| invalid(format!("server `{name}`: `tools` is not an object")))?;
                    let mut tools = BTreeMap::new();
                    for (tool_name, tool) in m {
                        if !tool.get().starts_with('{') {
                            return Err(invalid(format!("server `{name}`, tool `{tool_name}` is not an object")));
                        }
                        if !keep(&name, &tool_name, tool.get()) {
                            continue;
                        }
                        let v: Value = serde_json::from_str(tool.get()).map_err(syntax)?;
                        tools.insert(tool_name, v);
                    }
                    tools
                }
            };
            let instructions = match value("instructions") {
                Value::Null => None,
                Value::String(s) => Some(s),
                _ => return Err(invalid(format!("server `{name}`: `instructions` is not a string"))),
            };
            let client_capabilities = value("clientCapabilities")
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            let probes = match value("probes") {
                Value::Object(m) => m.into_iter().collect(),
                _ => BTreeMap::new(),
            };
            let protocol_version = value("protocolVersion").as_str().unwrap_or("").to_string();
            servers.insert(
                name,
                ServerEntry {
                    source: value("source"),
                    client_capabilities,
                    surface: ServerSurface {
                        protocol_version,
                        server_info: value("serverInfo"),
                        instructions,
                        capabilities: value("capabilities"),
                        tools,
                    },
                    probes,
                },
            );
        }
        Ok(Lockfile { normalizer_version, servers })
    }

    /// The raw text of every tool, by (server, tool), for cheap equality tests.
    pub fn tool_texts(text: &str) -> BTreeMap<(String, String), &str> {
        use serde_json::value::RawValue;
        let mut out = BTreeMap::new();
        let Ok(top) = serde_json::from_str::<BTreeMap<String, &RawValue>>(text) else { return out };
        let Some(servers) = top.get("servers").and_then(|r| serde_json::from_str::<BTreeMap<String, &RawValue>>(r.get()).ok()) else {
            return out;
        };
        for (server, entry) in servers {
            let Ok(e) = serde_json::from_str::<BTreeMap<String, &RawValue>>(entry.get()) else { continue };
            let Some(tools) = e.get("tools").and_then(|r| serde_json::from_str::<BTreeMap<String, &RawValue>>(r.get()).ok()) else {
                continue;
            };
            for (tool, raw) in tools {
                out.insert((server.clone(), tool), raw.get());
            }
        }
        out
    }

    /// The lock as a JSON value.
    pub fn to_value(&self) -> Value {
        let mut servers = Map::new();
        for (name, e) in &self.servers {
            let mut m = Map::new();
            m.insert("source".into(), e.source.clone());
            m.insert(
                "clientCapabilities".into(),
                Value::Array(e.client_capabilities.iter().cloned().map(Value::String).collect()),
            );
            m.insert("protocolVersion".into(), Value::String(e.surface.protocol_version.clone()));
            m.insert("serverInfo".into(), e.surface.server_info.clone());
            if let Some(i) = &e.surface.instructions {
                m.insert("instructions".into(), Value::String(i.clone()));
            }
            m.insert("capabilities".into(), e.surface.capabilities.clone());
            m.insert(
                "tools".into(),
                Value::Object(e.surface.tools.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
            );
            if !e.probes.is_empty() {
                m.insert(
                    "probes".into(),
                    Value::Object(e.probes.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
                );
            }
            servers.insert(name.clone(), Value::Object(m));
        }
        let mut root = Map::new();
        root.insert("lockfileVersion".into(), Value::from(LOCKFILE_VERSION));
        root.insert("normalizerVersion".into(), Value::from(self.normalizer_version));
        root.insert("servers".into(), Value::Object(servers));
        Value::Object(root)
    }

    /// The lock's canonical text.
    pub fn to_text(&self) -> String {
        crate::json::to_canonical_string(&self.to_value())
    }

    /// Write atomically: a temp file in the same folder, fsync, rename over the old lock, fsync
    /// the folder. A crash at any moment leaves the old lock or the new one, never a mix.
    pub fn write(&self, path: &Path) -> Result<(), LockfileError> {
        write_atomic(path, self.to_text().as_bytes())
            .map_err(|source| LockfileError::Write { path: path.to_path_buf(), source })
    }
}

/// Atomically replace `path` with `bytes`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".mcp-pin-")
        .suffix(".tmp")
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// How a server was reached, for the lock: command and args as written (so `${VAR}` stays a
/// reference), env and header NAMES only, the URL with userinfo and query values redacted.
pub fn source_of(server: &ServerConfig) -> Value {
    let mut m = Map::new();
    match &server.transport {
        Transport::Stdio(s) => {
            m.insert("transport".into(), "stdio".into());
            m.insert("command".into(), Value::String(s.command_template.clone()));
            m.insert(
                "args".into(),
                Value::Array(s.args_template.iter().cloned().map(Value::String).collect()),
            );
            if !s.env.is_empty() {
                m.insert("env".into(), Value::Array(s.env.keys().cloned().map(Value::String).collect()));
            }
            if let Some(c) = &s.cwd_template {
                m.insert("cwd".into(), Value::String(c.clone()));
            }
        }
        Transport::Http(h) => {
            m.insert("transport".into(), "http".into());
            m.insert("url".into(), Value::String(redact_url(&h.url_template)));
            if !h.headers.is_empty() {
                m.insert(
                    "headers".into(),
                    Value::Array(h.headers.keys().cloned().map(Value::String).collect()),
                );
            }
        }
    }
    Value::Object(m)
}

/// The 1-based line in the lock text where `servers.<server>.tools.<tool>` begins (for
/// annotations in a pull request), or the server's line when the tool is not in the lock.
pub fn line_of(text: &str, server: &str, tool: Option<&str>) -> Option<usize> {
    let mut server_key = String::new();
    crate::json::write_string(&mut server_key, server);
    let server_line = format!("    {server_key}: {{");
    let mut in_server = None;
    let mut in_tools = false;
    for (i, line) in text.lines().enumerate() {
        if in_server.is_none() {
            if line == server_line {
                in_server = Some(i + 1);
                if tool.is_none() {
                    return in_server;
                }
            }
            continue;
        }
        if line.starts_with("    }") {
            break;
        }
        if line == "      \"tools\": {" {
            in_tools = true;
            continue;
        }
        if in_tools {
            if line.starts_with("      }") {
                in_tools = false;
                continue;
            }
            if let Some(t) = tool {
                let mut key = String::new();
                crate::json::write_string(&mut key, t);
                if line == format!("        {key}: {{") {
                    return Some(i + 1);
                }
            }
        }
    }
    in_server
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Lockfile {
        let mut lock = Lockfile::new();
        let mut tools = BTreeMap::new();
        tools.insert("b".to_string(), json!({"name":"b","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}));
        tools.insert("a".to_string(), json!({"name":"a","inputSchema":{"type":"object"}}));
        lock.servers.insert(
            "srv".into(),
            ServerEntry {
                source: json!({"transport":"stdio","command":"x","args":[]}),
                client_capabilities: vec![],
                surface: ServerSurface {
                    protocol_version: "2025-11-25".into(),
                    server_info: json!({"name":"s","version":"1"}),
                    instructions: Some("hi".into()),
                    capabilities: json!({"tools":{}}),
                    tools,
                },
                probes: BTreeMap::new(),
            },
        );
        lock
    }

    #[test]
    fn round_trips_and_is_deterministic() {
        let lock = sample();
        let text = lock.to_text();
        let back = Lockfile::parse(&text, Path::new("mcp.lock")).unwrap();
        assert_eq!(back, lock);
        assert_eq!(back.to_text(), text);
        assert!(text.ends_with("}\n"));
        // Unknown tool fields survive.
        assert!(text.contains("\"taskSupport\": \"optional\""));
    }

    #[test]
    fn line_of_finds_tool_entries() {
        let text = sample().to_text();
        let l = line_of(&text, "srv", Some("b")).unwrap();
        assert_eq!(text.lines().nth(l - 1).unwrap(), "        \"b\": {");
        let s = line_of(&text, "srv", None).unwrap();
        assert_eq!(text.lines().nth(s - 1).unwrap(), "    \"srv\": {");
        assert_eq!(line_of(&text, "srv", Some("gone")), Some(s));
    }

    #[test]
    fn refuses_newer_and_reports_position() {
        let e = Lockfile::parse(r#"{"lockfileVersion": 99, "servers": {}}"#, Path::new("mcp.lock")).unwrap_err();
        assert!(e.to_string().contains("upgrade mcp-pin"), "{e}");
        let e = Lockfile::parse("{\n  \"lockfileVersion\": 1,\n  \"servers\": {\n", Path::new("mcp.lock")).unwrap_err();
        match e {
            LockfileError::Syntax { line, .. } => assert_eq!(line, 4),
            other => panic!("{other}"),
        }
    }

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("mcp.lock");
        sample().write(&p).unwrap();
        let first = std::fs::read_to_string(&p).unwrap();
        sample().write(&p).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), first);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp files left behind");
    }
}
