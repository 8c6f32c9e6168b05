//! `mcp.lock`: the pinned surfaces, deterministic and reviewable, written atomically.
//!
//! See `docs/lockfile.md` for the format. The lock is JSON with sorted keys and two-space indent
//! (written by [`crate::json`]), servers and tools keyed (so sorted) by name, no timestamps, and
//! never a secret: how a server was reached is recorded without env or header values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::config::{redact_url, Launch, ServerConfig, Transport};
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
    /// Git left merge conflict markers in it: two branches changed the lock.
    #[error("lockfile {path} has git merge conflict markers (line {line}: `<<<<<<<`): two branches each changed it, and git could not merge them")]
    Conflict { path: PathBuf, line: usize },
    #[error(
        "lockfile {path} has lockfileVersion {found}, newer than this mcp-pin supports ({supported}); upgrade mcp-pin"
    )]
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
    /// The command, args, cwd or URL as written in the config (`server-launch-changed`); `None`
    /// in a lock written before mcp-pin recorded it (nothing is compared until the next `lock`).
    pub launch: Option<Launch>,
    /// Client capabilities declared when it was locked.
    pub client_capabilities: Vec<String>,
    /// The client mcp-pin presented itself as when it was locked (`client = "..."`); `None` in a
    /// lock written before mcp-pin presented itself as a client (it was then mcp-pin itself).
    pub client: Option<String>,
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
        Lockfile::parse(LockText::read(path)?.as_str(), path)
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
        ScannedLock::scan(text, path)?.build(keep)
    }

    /// The lock as a JSON value (as held, nothing masked: see [`Lockfile::written_text`]).
    pub fn to_value(&self) -> Value {
        self.value(false)
    }

    /// The lock as a JSON value; with `masked`, as it is written: every secret masked in its
    /// strings, values and keys ([`ServerSurface::mask_secrets`], [`crate::secrets::mask_json`],
    /// a tool's name by [`crate::secrets::masked_keys`]) wherever it came
    /// from (a server echoing another server's secret, an entry pinned by a run that had not
    /// read that secret), and the digests computed from the tools exactly as pinned.
    fn value(&self, masked: bool) -> Value {
        let mut servers = Map::new();
        for (name, e) in &self.servers {
            let mut surface = e.surface.clone();
            let mut probes = e.probes.clone();
            if masked {
                surface.mask_secrets();
            }
            let ServerSurface { protocol_version, server_info, instructions, capabilities, mut tools } = surface;
            // A tool's name is masked too (`take` refuses a live surface with a secret in one,
            // so only an entry pinned by a run that had not read the secret has one): `tools`,
            // `digests` and `probes` name the tool alike.
            if masked {
                let entries: Vec<(&str, &Value)> = tools.iter().map(|(k, v)| (k.as_str(), v)).collect();
                if let Some(names) = crate::secrets::masked_keys(&entries) {
                    let renamed: BTreeMap<String, String> = tools.keys().cloned().zip(names).collect();
                    let rename = |k: String| renamed.get(&k).cloned().unwrap_or(k);
                    tools = std::mem::take(&mut tools).into_iter().map(|(k, v)| (rename(k), v)).collect();
                    probes = probes.into_iter().map(|(k, v)| (rename(k), v)).collect();
                }
            }
            let mut m = Map::new();
            m.insert("source".into(), e.source.clone());
            if let Some(l) = &e.launch {
                m.insert("launch".into(), l.to_json());
            }
            m.insert(
                "clientCapabilities".into(),
                Value::Array(e.client_capabilities.iter().cloned().map(Value::String).collect()),
            );
            if let Some(client) = &e.client {
                m.insert("client".into(), Value::String(client.clone()));
            }
            m.insert("protocolVersion".into(), Value::String(protocol_version));
            m.insert("serverInfo".into(), server_info);
            if let Some(i) = instructions {
                m.insert("instructions".into(), Value::String(i));
            }
            m.insert("capabilities".into(), capabilities);
            if !probes.is_empty() {
                m.insert("probes".into(), Value::Object(probes.into_iter().collect()));
            }
            if masked {
                m.values_mut().for_each(|v| {
                    crate::secrets::mask_json(v);
                });
            }
            // Derived from the tools as pinned (never read back): SHA-256 over RFC 8785 JSON.
            if !tools.is_empty() {
                m.insert(
                    "digests".into(),
                    Value::Object(
                        crate::digest::digests(&tools).into_iter().map(|(k, v)| (k, Value::String(v))).collect(),
                    ),
                );
            }
            m.insert("tools".into(), Value::Object(tools.into_iter().collect()));
            servers.insert(name.clone(), Value::Object(m));
        }
        let mut root = Map::new();
        root.insert("lockfileVersion".into(), Value::from(LOCKFILE_VERSION));
        root.insert("normalizerVersion".into(), Value::from(self.normalizer_version));
        root.insert("servers".into(), Value::Object(servers));
        Value::Object(root)
    }

    /// The lock's text as it is written: canonical, every secret masked in its strings, the
    /// digests of the tools as pinned ([`Lockfile::value`]).
    pub fn written_text(&self) -> String {
        crate::json::to_canonical_string(&self.value(true))
    }

    /// The lock's canonical text (as held, nothing masked).
    pub fn to_text(&self) -> String {
        crate::json::to_canonical_string(&self.to_value())
    }

    /// Write atomically: a temp file in the same folder, fsync, rename over the old lock, fsync
    /// the folder. A crash at any moment leaves the old lock or the new one, never a mix.
    pub fn write(&self, path: &Path) -> Result<(), LockfileError> {
        self.write_text(path, &self.written_text())
    }

    /// Write `text`, this lock's [`Lockfile::written_text`] already in hand, as [`Lockfile::write`] does.
    pub fn write_text(&self, path: &Path, text: &str) -> Result<(), LockfileError> {
        crate::files::write_atomic(path, text.as_bytes())
            .map_err(|source| LockfileError::Write { path: path.to_path_buf(), source })
    }
}

/// The text of a lockfile as read from disk. Large files are mapped rather than copied: `mcp-pin
/// diff` of two 16 MB locks spent a third of its time copying them into fresh memory.
pub enum LockText {
    Owned(String),
    Mapped(memmap2::Mmap),
}

impl LockText {
    /// Files from this size on are mapped.
    const MAP_FROM: u64 = 1 << 20;

    /// Read the lockfile at `path`. A missing file is `LockfileError::Missing`.
    pub fn read(path: &Path) -> Result<LockText, LockfileError> {
        let io = |source: std::io::Error| match source.kind() {
            std::io::ErrorKind::NotFound => LockfileError::Missing { path: path.to_path_buf() },
            _ => LockfileError::Io { path: path.to_path_buf(), source },
        };
        let file = crate::files::open_regular(path, MAX_LOCKFILE).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.len() >= Self::MAP_FROM {
            // SAFETY: the map is read-only. mcp-pin itself replaces a lockfile by renaming a new
            // file over it (`write_atomic`), as git does on checkout, which leaves this mapping on
            // the old inode. Only a writer truncating the file in place while it is being read
            // could change it underneath (the process would then stop with SIGBUS, never read
            // a mix); the map lives only while the lock is scanned.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
            std::str::from_utf8(&map).map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
            return Ok(LockText::Mapped(map));
        }
        // Capped while it is read too: a file that grows past the limit is not read on.
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::Read::take(&file, MAX_LOCKFILE + 1), &mut text).map_err(io)?;
        if text.len() as u64 > MAX_LOCKFILE {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("it grew past {MAX_LOCKFILE} bytes while being read"),
            )));
        }
        Ok(LockText::Owned(text))
    }

    pub fn as_str(&self) -> &str {
        match self {
            LockText::Owned(s) => s,
            // SAFETY: validated as UTF-8 in `read`.
            LockText::Mapped(m) => unsafe { std::str::from_utf8_unchecked(m) },
        }
    }
}

/// A lockfile scanned once: its structure (servers, their fields, their tools) is parsed in a
/// single pass over the text and every value is kept as its raw text, so a lock of thousands of
/// tools costs one scan and only the values that are needed become trees. The writer is
/// canonical, so two equal tools have equal text.
pub struct ScannedLock<'a> {
    text: &'a str,
    path: PathBuf,
    normalizer_version: u64,
    servers: BTreeMap<String, RawServer<'a>>,
}

struct RawServer<'a> {
    fields: BTreeMap<String, &'a RawValue>,
    tools: BTreeMap<String, &'a RawValue>,
}

impl<'a> ScannedLock<'a> {
    /// Scan `text` (`path` is only for messages): syntax errors with line and column, a lock
    /// from a newer mcp-pin refused with "upgrade", a structure that is not a lock explained.
    pub fn scan(text: &'a str, path: &Path) -> Result<ScannedLock<'a>, LockfileError> {
        let invalid = |message: String| LockfileError::Invalid { path: path.to_path_buf(), message };
        let top: ObjectOr<RawTop<'a>> = serde_json::from_str(text).map_err(|e| {
            // `<<<<<<< ours` at the start of a line: a merge conflict, not a broken file.
            if let Some(line) = text.lines().position(|l| l.starts_with("<<<<<<<")) {
                return LockfileError::Conflict { path: path.to_path_buf(), line: line + 1 };
            }
            if e.is_data() {
                invalid(e.to_string())
            } else {
                LockfileError::Syntax {
                    path: path.to_path_buf(),
                    line: e.line(),
                    column: e.column(),
                    message: e.to_string().split(" at line").next().unwrap_or("").to_string(),
                }
            }
        })?;
        let ObjectOr::Object(top) = top else {
            return Err(invalid("the top level is not an object".into()));
        };
        let version = top
            .lockfile_version
            .and_then(|r| serde_json::from_str::<u64>(r.get()).ok())
            .ok_or_else(|| invalid("`lockfileVersion` is missing; is this an mcp-pin lockfile?".into()))?;
        if version > LOCKFILE_VERSION {
            return Err(LockfileError::TooNew {
                path: path.to_path_buf(),
                found: version,
                supported: LOCKFILE_VERSION,
            });
        }
        let normalizer_version =
            top.normalizer_version.and_then(|r| serde_json::from_str::<u64>(r.get()).ok()).unwrap_or(1);
        let server_map = match top.servers {
            None => BTreeMap::new(),
            Some(ObjectOr::Object(m)) => m.0,
            Some(ObjectOr::Other) => return Err(invalid("`servers` is not an object".into())),
        };
        let mut servers = BTreeMap::new();
        for (name, entry) in server_map {
            let ObjectOr::Object(RawServerFields { fields, tools }) = entry else {
                return Err(invalid(format!("server `{name}` is not an object")));
            };
            let tools = match tools {
                None => BTreeMap::new(),
                Some(ObjectOr::Object(t)) => t.0,
                Some(ObjectOr::Other) => return Err(invalid(format!("server `{name}`: `tools` is not an object"))),
            };
            if let Some(tool) = tools.iter().find(|(_, t)| !t.get().starts_with('{')).map(|(n, _)| n) {
                return Err(invalid(format!("server `{name}`, tool `{tool}` is not an object")));
            }
            servers.insert(name, RawServer { fields, tools });
        }
        Ok(ScannedLock { text, path: path.to_path_buf(), normalizer_version, servers })
    }

    /// The raw text of a tool.
    pub fn tool_text(&self, server: &str, tool: &str) -> Option<&'a str> {
        self.servers.get(server)?.tools.get(tool).map(|r| r.get())
    }

    /// Build the lock, keeping only the tools for which `keep(server, tool, raw_text)` is true.
    pub fn build(&self, keep: &dyn Fn(&str, &str, &str) -> bool) -> Result<Lockfile, LockfileError> {
        let mut servers = BTreeMap::new();
        for (name, raw) in &self.servers {
            servers.insert(name.clone(), self.entry(name, raw, &|tool, text| keep(name, tool, text))?);
        }
        Ok(Lockfile { normalizer_version: self.normalizer_version, servers })
    }

    /// The names of every server in the lock.
    /// How many tools the lock holds for `server`.
    pub fn tool_count(&self, server: &str) -> usize {
        self.servers.get(server).map_or(0, |s| s.tools.len())
    }

    pub fn server_names(&self) -> impl Iterator<Item = &String> {
        self.servers.keys()
    }

    /// The entries of the servers for which `wanted(name)` is true, their tools left as text, to
    /// be resolved against a live surface ([`PendingEntry::resolve`]) where the work is spread.
    pub fn pending(&self, wanted: &dyn Fn(&str) -> bool) -> Result<BTreeMap<String, PendingEntry>, LockfileError> {
        let mut out = BTreeMap::new();
        // Where each tool begins, for errors found when a tool is parsed later (the text is
        // gone by then): one pass over the text, tools in the order they are written.
        let mut starts: Vec<(usize, &str, &str)> = self
            .servers
            .iter()
            .filter(|(n, _)| wanted(n))
            .flat_map(|(n, raw)| raw.tools.iter().map(move |(t, r)| (self.offset_of(r), n.as_str(), t.as_str())))
            .collect();
        starts.sort_unstable();
        let mut lines: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        let (mut at, mut line) = (0, 1);
        for (offset, server, tool) in starts {
            line += self.text.as_bytes()[at..offset].iter().filter(|&&b| b == b'\n').count();
            at = offset;
            lines.insert((server, tool), line);
        }
        for (name, raw) in self.servers.iter().filter(|(n, _)| wanted(n)) {
            let entry = self.entry(name, raw, &|_, _| false)?;
            let tools = raw.tools.iter().map(|(t, text)| (t.clone(), text.get().to_string())).collect();
            let lines = raw
                .tools
                .keys()
                .map(|t| (t.clone(), lines.get(&(name.as_str(), t.as_str())).copied().unwrap_or(1)))
                .collect();
            out.insert(name.clone(), PendingEntry { entry, tools, lines, path: self.path.clone() });
        }
        Ok(out)
    }

    /// The byte offset of a value of this lock's text.
    fn offset_of(&self, raw: &RawValue) -> usize {
        (raw.get().as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize)
    }

    fn entry(
        &self,
        name: &str,
        raw: &RawServer<'a>,
        keep: &dyn Fn(&str, &str) -> bool,
    ) -> Result<ServerEntry, LockfileError> {
        let invalid = |message: String| LockfileError::Invalid { path: self.path.clone(), message };
        let line_of_value =
            |r: &RawValue| self.text[..self.offset_of(r).min(self.text.len())].matches('\n').count() + 1;
        let parse = |what: String, r: &RawValue| -> Result<Value, LockfileError> {
            // The scan validated the syntax; a tree is built only now, each key checked once.
            crate::json_read::from_str(r.get())
                .map_err(|e| invalid(format!("{what}: {}", at_line(&e, line_of_value(r)))))
        };
        // Only the fields read are parsed (`digests` is derived, never read back).
        let value = |key: &str| -> Result<Value, LockfileError> {
            raw.fields.get(key).map_or(Ok(Value::Null), |r| parse(format!("server `{name}`, `{key}`"), r))
        };
        let mut tools = BTreeMap::new();
        for (tool_name, tool) in &raw.tools {
            if keep(tool_name, tool.get()) {
                tools.insert(tool_name.clone(), parse(format!("server `{name}`, tool `{tool_name}`"), tool)?);
            }
        }
        let instructions = match value("instructions")? {
            Value::Null => None,
            Value::String(s) => Some(s),
            _ => return Err(invalid(format!("server `{name}`: `instructions` is not a string"))),
        };
        let client_capabilities = value("clientCapabilities")?
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        let client = match value("client")? {
            Value::Null => None,
            Value::String(s) => Some(s),
            _ => return Err(invalid(format!("server `{name}`: `client` is not a string"))),
        };
        let probes = match value("probes")? {
            Value::Object(m) => m.into_iter().collect(),
            _ => BTreeMap::new(),
        };
        let launch = match value("launch")? {
            Value::Null => None,
            v => Some(Launch::from_json(&v).map_err(|m| invalid(format!("server `{name}`: `launch` {m}")))?),
        };
        let protocol_version = value("protocolVersion")?.as_str().unwrap_or("").to_string();
        Ok(ServerEntry {
            source: value("source")?,
            launch,
            client_capabilities,
            client,
            surface: ServerSurface {
                protocol_version,
                server_info: value("serverInfo")?,
                instructions,
                capabilities: value("capabilities")?,
                tools,
            },
            probes,
        })
    }
}

/// A server's lock entry whose tools are still the lock's canonical text.
#[derive(Debug, Clone)]
pub struct PendingEntry {
    /// Everything but the tools, parsed.
    pub entry: ServerEntry,
    /// Each tool's text as the lock holds it.
    pub tools: BTreeMap<String, String>,
    /// The line of the lock where each tool begins (for errors).
    lines: BTreeMap<String, usize>,
    path: PathBuf,
}

/// How deep a tool sits in the lock (`servers` > server > `tools` > tool), for its canonical text.
const TOOL_LEVEL: usize = 4;

/// The message of an error found in a value that begins on line `first` of the lock, with the
/// line and column in the lock (serde_json counts them within the value).
fn at_line(e: &serde_json::Error, first: usize) -> String {
    let message = e.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message).to_string();
    let column = if e.line() <= 1 { String::new() } else { format!(", column {}", e.column()) };
    format!("{message} at line {}{column}", first + e.line().saturating_sub(1))
}

impl PendingEntry {
    /// The pinned surface to diff `live` against. A live tool whose canonical text is the
    /// pinned text cannot differ, so it is dropped from both sides (as `mcp-pin diff` does) and
    /// never built into a tree; every other pinned tool is parsed.
    pub fn resolve(self, live: &mut ServerSurface) -> Result<ServerEntry, LockfileError> {
        let PendingEntry { mut entry, tools, lines, path } = self;
        for (name, text) in tools {
            if let Some(v) = live.tools.get(&name) {
                if crate::json::to_canonical_string_at(v, TOOL_LEVEL) == text {
                    live.tools.remove(&name);
                    continue;
                }
            }
            let v: Value = crate::json_read::from_str(&text).map_err(|e| LockfileError::Invalid {
                path: path.clone(),
                message: format!("tool `{name}`: {}", at_line(&e, lines.get(&name).copied().unwrap_or(1))),
            })?;
            entry.surface.tools.insert(name, v);
        }
        Ok(entry)
    }
}

/// An object parsed as `T`, or a note that the value was something else, so the scan says
/// which part of a hand-broken lock is wrong instead of serde's generic message.
enum ObjectOr<T> {
    Object(T),
    Other,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = ObjectOr<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                // serde_json (arbitrary_precision) hands a number over as a one-entry map
                // under a private key: that is not an object.
                let first = map.next_key::<String>()?;
                if first.as_deref() == Some("$serde_json::private::Number") {
                    map.next_value::<IgnoredAny>()?;
                    return Ok(ObjectOr::Other);
                }
                let map = KeyFirst { first, done: false, inner: map };
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(ObjectOr::Object)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ObjectOr::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(ObjectOr::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A map whose first key was already read (to tell a number from an object).
struct KeyFirst<A> {
    first: Option<String>,
    done: bool,
    inner: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for KeyFirst<A> {
    type Error = A::Error;
    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        if !self.done {
            self.done = true;
            return match self.first.take() {
                Some(k) => seed.deserialize(serde::de::IntoDeserializer::<A::Error>::into_deserializer(k)).map(Some),
                None => Ok(None),
            };
        }
        self.inner.next_key_seed(seed)
    }
    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}

/// The top level of a lock: the version fields and the servers; other keys are skipped.
struct RawTop<'a> {
    lockfile_version: Option<&'a RawValue>,
    normalizer_version: Option<&'a RawValue>,
    servers: Option<ObjectOr<KeyedOnce<ObjectOr<RawServerFields<'a>>>>>,
}

/// A server entry: `tools` split out, every other field kept raw.
struct RawServerFields<'a> {
    fields: BTreeMap<String, &'a RawValue>,
    tools: Option<ObjectOr<KeyedOnce<&'a RawValue>>>,
}

/// An object by key, each key once ([`crate::json_read`]): a second `"t"` in `tools` would
/// otherwise replace the first, unseen by a reviewer of the diff.
struct KeyedOnce<V>(BTreeMap<String, V>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for KeyedOnce<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Vis<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Vis<V> {
            type Value = KeyedOnce<V>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.contains_key(&key) {
                        return Err(crate::json_read::duplicate(&key));
                    }
                    let v = map.next_value()?;
                    out.insert(key, v);
                }
                Ok(KeyedOnce(out))
            }
        }
        d.deserialize_map(Vis(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawTop<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = RawTop<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an mcp-pin lockfile object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut top = RawTop { lockfile_version: None, normalizer_version: None, servers: None };
                let mut seen = std::collections::BTreeSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(crate::json_read::duplicate(&key));
                    }
                    match key.as_str() {
                        "lockfileVersion" => top.lockfile_version = Some(map.next_value()?),
                        "normalizerVersion" => top.normalizer_version = Some(map.next_value()?),
                        "servers" => top.servers = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(top)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawServerFields<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = RawServerFields<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a server entry object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = RawServerFields { fields: BTreeMap::new(), tools: None };
                while let Some(key) = map.next_key::<String>()? {
                    if out.fields.contains_key(&key) || (key == "tools" && out.tools.is_some()) {
                        return Err(crate::json_read::duplicate(&key));
                    }
                    if key == "tools" {
                        out.tools = Some(map.next_value()?);
                    } else {
                        out.fields.insert(key, map.next_value()?);
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// An advisory lock held while a run reads, updates and writes one lockfile (`lock`, `review`):
/// a second run on the same lockfile waits until the first has written, then reads what it
/// wrote, so no update is lost. Held on a sidecar file (`.mcp.lock.lock` beside `mcp.lock`),
/// because the lockfile itself is replaced by rename on every write.
pub struct WriteGuard {
    file: std::fs::File,
    sidecar: PathBuf,
}

impl Drop for WriteGuard {
    /// The sidecar is removed while still held (so it never lingers in `git status`); a run
    /// waiting on it then finds it gone from the path and takes a new one ([`WriteGuard::acquire`]).
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.sidecar);
        let _ = self.file.unlock();
    }
}

impl WriteGuard {
    /// Take the lock for `lockfile`, calling `waiting` once if another run holds it.
    pub fn acquire(lockfile: &Path, waiting: impl FnOnce(&Path)) -> std::io::Result<WriteGuard> {
        let sidecar = Self::sidecar(lockfile);
        let mut waiting = Some(waiting);
        loop {
            let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&sidecar)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    if let Some(w) = waiting.take() {
                        w(&sidecar);
                    }
                    file.lock()?;
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
            // The holder before may have removed the file this run waited on: only the file
            // still at the path counts.
            if Self::same_file(&file, &sidecar) {
                return Ok(WriteGuard { file, sidecar });
            }
        }
    }

    #[cfg(unix)]
    fn same_file(file: &std::fs::File, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }

    #[cfg(not(unix))]
    fn same_file(_: &std::fs::File, path: &Path) -> bool {
        path.exists()
    }

    /// The sidecar file of `lockfile`.
    pub fn sidecar(lockfile: &Path) -> PathBuf {
        let name = lockfile.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "mcp.lock".into());
        lockfile.with_file_name(format!(".{name}.lock"))
    }
}

/// The largest lockfile read (a lock of 100,000 tools is about 100 MB).
pub const MAX_LOCKFILE: u64 = 1 << 30;

/// How a server was reached, for the lock: command and args as written (so `${VAR}` stays a
/// reference), env and header NAMES only, the URL with userinfo and query values redacted.
pub fn source_of(server: &ServerConfig) -> Value {
    let mut m = Map::new();
    match &server.transport {
        Transport::Stdio(s) => {
            m.insert("transport".into(), "stdio".into());
            m.insert("command".into(), Value::String(s.command_template.clone()));
            m.insert("args".into(), Value::Array(s.args_template.iter().cloned().map(Value::String).collect()));
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
                m.insert("headers".into(), Value::Array(h.headers.keys().cloned().map(Value::String).collect()));
            }
        }
    }
    Value::Object(m)
}

/// The 1-based line in the lock text where `servers.<server>.tools.<tool>` begins (for
/// annotations in a pull request), or the server's line when the tool is not in the lock.
pub fn line_of(text: &str, server: &str, tool: Option<&str>) -> Option<usize> {
    let key = |name: &str| {
        let mut k = String::new();
        crate::json::write_string(&mut k, name);
        k
    };
    // An entry opens with `"name": {` at its indent; an empty one is `"name": {}` on one line.
    let server_open = format!("    {}: {{", key(server));
    let tool_open = tool.map(|t| format!("        {}: {{", key(t)));
    let mut lines = text.lines().enumerate();
    let (server_line, empty) =
        lines.by_ref().find(|(_, l)| l.starts_with(&server_open)).map(|(i, l)| (i + 1, l.len() > server_open.len()))?;
    let Some(tool_open) = tool_open.filter(|_| !empty) else {
        return Some(server_line);
    };
    let mut in_tools = false;
    for (i, line) in lines {
        if line.starts_with("    }") {
            break;
        }
        if line.starts_with("      \"tools\": {") {
            in_tools = line.len() == "      \"tools\": {".len();
            continue;
        }
        if in_tools {
            if line.starts_with("      }") {
                break;
            }
            if line.starts_with(&tool_open) {
                return Some(i + 1);
            }
        }
    }
    Some(server_line)
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
    e.launch = live.launch.clone();
    e.client_capabilities = live.client_capabilities.clone();
    e.client = live.client.clone();
    e.surface.protocol_version = live.surface.protocol_version.clone();
    e.surface.server_info = live.surface.server_info.clone();
    e.surface.instructions = live.surface.instructions.clone();
    e.surface.capabilities = live.surface.capabilities.clone();
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Lockfile {
        let mut lock = Lockfile::new();
        let mut tools = BTreeMap::new();
        tools.insert(
            "b".to_string(),
            json!({"name":"b","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}),
        );
        tools.insert("a".to_string(), json!({"name":"a","inputSchema":{"type":"object"}}));
        lock.servers.insert(
            "srv".into(),
            ServerEntry {
                source: json!({"transport":"stdio","command":"x","args":[]}),
                launch: None,
                client_capabilities: vec![],
                client: None,
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
        // Empty entries are written on one line (`"name": {}`); found by the lockfile fuzz target.
        let mut lock = sample();
        lock.servers.get_mut("srv").unwrap().surface.tools.insert("empty".into(), json!({}));
        lock.servers.get_mut("srv").unwrap().probes.insert("b".into(), json!({}));
        lock.servers.insert("a-first".into(), ServerEntry::default());
        let text = lock.to_text();
        let l = line_of(&text, "srv", Some("empty")).unwrap();
        assert_eq!(text.lines().nth(l - 1).unwrap(), "        \"empty\": {}");
        let l = line_of(&text, "srv", Some("b")).unwrap();
        assert_eq!(text.lines().nth(l - 1).unwrap(), "        \"b\": {", "the tool, not the probe of the same name");
        let a = line_of(&text, "a-first", Some("b")).unwrap();
        assert!(text.lines().nth(a - 1).unwrap().starts_with("    \"a-first\": {"), "never a tool of the next server");
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
    fn scan_names_the_part_of_a_broken_lock_that_is_wrong() {
        let err = |text: &str| Lockfile::parse(text, Path::new("mcp.lock")).unwrap_err().to_string();
        let cases = [
            (r#"[1, 2]"#, "the top level is not an object"),
            (r#"12"#, "the top level is not an object"),
            (r#"{"servers": {}}"#, "`lockfileVersion` is missing"),
            (r#"{"lockfileVersion": 1, "servers": []}"#, "`servers` is not an object"),
            (r#"{"lockfileVersion": 1, "servers": {"a": 3}}"#, "server `a` is not an object"),
            (r#"{"lockfileVersion": 1, "servers": {"a": 3.5e2}}"#, "server `a` is not an object"),
            (r#"{"lockfileVersion": 1, "servers": {"a": {"tools": 7}}}"#, "server `a`: `tools` is not an object"),
            (
                r#"{"lockfileVersion": 1, "servers": {"a": {"tools": {"t": [1]}}}}"#,
                "server `a`, tool `t` is not an object",
            ),
            (
                r#"{"lockfileVersion": 1, "servers": {"a": {"tools": {}, "instructions": 1}}}"#,
                "`instructions` is not a string",
            ),
            // The version is judged before the shape: a newer lock may be shaped differently.
            (r#"{"lockfileVersion": 2, "servers": 5}"#, "upgrade mcp-pin"),
        ];
        for (text, want) in cases {
            let e = err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
        // Unknown top-level and server keys are skipped; a number key at the top is just a key.
        let ok = r#"{"lockfileVersion": 1, "x": {"y": [1, {"z": 2}]}, "servers": {"a": {"extra": 1e400, "tools": {"t": {"name": "t"}}}}}"#;
        let lock = Lockfile::parse(ok, Path::new("mcp.lock")).unwrap();
        assert_eq!(lock.servers["a"].surface.tools["t"], json!({"name": "t"}));
    }

    #[test]
    fn big_locks_are_mapped_and_read_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let mut lock = sample();
        let entry = lock.servers.get_mut("srv").unwrap();
        for i in 0..400 {
            entry
                .surface
                .tools
                .insert(format!("t{i}"), json!({"name": format!("t{i}"), "description": "x".repeat(4000)}));
        }
        let p = dir.path().join("mcp.lock");
        lock.write(&p).unwrap();
        let text = LockText::read(&p).unwrap();
        assert!(matches!(text, LockText::Mapped(_)), "a 1.6 MB lock is mapped");
        assert_eq!(Lockfile::parse(text.as_str(), &p).unwrap(), lock);
        assert_eq!(Lockfile::read(&p).unwrap(), lock);
        // A big file that is not UTF-8 is refused like a small one.
        let mut bytes = lock.to_text().into_bytes();
        bytes[100] = 0xff;
        std::fs::write(&p, &bytes).unwrap();
        let e = LockText::read(&p).err().expect("not UTF-8");
        assert!(matches!(e, LockfileError::Io { .. }), "{e}");
        assert!(matches!(LockText::read(&dir.path().join("none.lock")), Err(LockfileError::Missing { .. })));
    }

    #[test]
    fn pending_entries_parse_only_the_tools_that_changed() {
        let mut lock = sample();
        lock.servers
            .get_mut("srv")
            .unwrap()
            .surface
            .tools
            .insert("n".into(), serde_json::from_str(r#"{"name":"n","inputSchema":{"maximum":1e3}}"#).unwrap());
        let text = lock.to_text();
        let scanned = ScannedLock::scan(&text, Path::new("mcp.lock")).unwrap();
        let pending = scanned.pending(&|s| s == "srv").unwrap();
        assert_eq!(pending.len(), 1);
        let p = pending["srv"].clone();
        assert_eq!(p.entry.surface.instructions.as_deref(), Some("hi"));
        assert!(p.entry.surface.tools.is_empty());
        // Live: `a` unchanged, `n` unchanged but spelled 1e3 (the lock says 1e+3), `b` changed, `c` new.
        let mut live = lock.servers["srv"].surface.clone();
        live.tools.insert("n".into(), serde_json::from_str(r#"{"name":"n","inputSchema":{"maximum":1e3}}"#).unwrap());
        live.tools.insert("b".into(), json!({"name": "b", "inputSchema": {"type": "string"}}));
        live.tools.insert("c".into(), json!({"name": "c"}));
        let pinned = p.resolve(&mut live).unwrap();
        assert_eq!(pinned.surface.tools.keys().collect::<Vec<_>>(), ["b"], "only the changed tool is parsed");
        assert_eq!(pinned.surface.tools["b"], lock.servers["srv"].surface.tools["b"]);
        assert_eq!(live.tools.keys().collect::<Vec<_>>(), ["b", "c"], "unchanged tools leave both sides");
        // A lock formatted by hand is not canonical text: every tool is parsed, none is lost.
        let compact = serde_json::to_string(&serde_json::from_str::<Value>(&text).unwrap()).unwrap();
        let scanned = ScannedLock::scan(&compact, Path::new("mcp.lock")).unwrap();
        let mut live = lock.servers["srv"].surface.clone();
        let pinned = scanned.pending(&|_| true).unwrap().remove("srv").unwrap().resolve(&mut live).unwrap();
        assert_eq!(pinned.surface.tools, lock.servers["srv"].surface.tools);
        assert_eq!(live.tools, lock.servers["srv"].surface.tools);
        assert_eq!(scanned.server_names().collect::<Vec<_>>(), ["srv"]);
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
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&p), 0o644, "a new lock is readable by others, not 0600 like a temp file");
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
            sample().write(&p).unwrap();
            assert_eq!(mode(&p), 0o640, "a replaced lock keeps its permissions");
        }
    }
}
