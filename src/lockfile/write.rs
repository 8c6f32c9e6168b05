//! The writer: the lock as canonical JSON, every secret masked and the digests derived
//! ([`Lockfile::written_text`]), written atomically under an advisory lock ([`WriteGuard`]); and
//! how a configured server was reached, as the lock records it ([`source_of`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::model::Lockfile;
use super::{LockfileError, LOCKFILE_VERSION};
use crate::config::{redact_url, ServerConfig, Transport};
use crate::surface::ServerSurface;

impl Lockfile {
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
