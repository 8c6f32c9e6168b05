//! The reader: a lockfile's text scanned once ([`ScannedLock`]: every key once, each value kept
//! as its raw text until it is needed), a large file mapped ([`LockText`]), and the line of an
//! entry for annotations ([`line_of`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::model::{Lockfile, ServerEntry};
use super::pending::{at_line, PendingEntry};
use super::{LockfileError, LOCKFILE_VERSION};
use crate::config::Launch;
use crate::surface::ServerSurface;

impl Lockfile {
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
}

/// The largest lockfile read (a lock of 100,000 tools is about 100 MB).
pub const MAX_LOCKFILE: u64 = 1 << 30;

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
    #[allow(unsafe_code, reason = "a large lock is mapped read-only (memmap2), see the SAFETY note")]
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

    #[allow(unsafe_code, reason = "the map was checked as UTF-8 when it was read")]
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
