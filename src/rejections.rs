//! The team's rejections: live definitions a reviewer said "no" to in `mcp-pin review`, each with
//! its reason and date, in a committed file beside the lockfile (`mcp.rejected.json` beside
//! `mcp.lock`). `check` names them, `lock` refuses them (keeps the pinned definition) unless told
//! `--accept-rejected`, `review` does not ask again while the live definition is the rejected one.
//! A rejection matches the definition that was rejected: a later, different one is a new question.
//!
//! Kept out of `mcp.lock` so an older mcp-pin, which rewrites the lock whole, never drops a
//! team's decision without a word; and so the lockfile model stays as it is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::surface::ServerSurface;

/// One rejected definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rejection {
    /// `sha256-…` of the rejected definition as the lock would pin it (masked), or `fnv1a-…` for
    /// one migrated from the older, local `.mcp.lock.rejected`.
    pub definition: String,
    /// Why, as the reviewer wrote it (absent when none was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The day it was rejected (`YYYY-MM-DD`), absent for a migrated one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Who rejected it, when recorded (a team may write it by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

impl Rejection {
    /// `on 2026-12-07 by Ann: "reason"`, each part only when recorded.
    pub fn describe(&self) -> String {
        let mut parts = vec![];
        if let Some(d) = &self.date {
            parts.push(format!("on {d}"));
        }
        if let Some(b) = &self.by {
            parts.push(format!("by {}", crate::json::escape_line(b)));
        }
        let when = if parts.is_empty() { String::new() } else { format!(" {}", parts.join(" ")) };
        match &self.reason {
            Some(r) => format!("rejected{when}: \"{}\"", crate::json::escape_line(r)),
            None => format!("rejected{when} (no reason recorded)"),
        }
    }
}

/// What a rejection is about: one tool's definition, or the server-level facts.
pub fn item_key(tool: &Option<String>) -> String {
    match tool {
        Some(t) => format!("tool {t}"),
        None => "server".into(),
    }
}

/// `tool `NAME`` or `the server-level changes`, as messages name an item.
pub fn item_label(tool: &Option<String>) -> String {
    match tool {
        Some(t) => format!("tool `{}`", crate::json::escape_line(t)),
        None => "the server-level changes".into(),
    }
}

/// The rejections of one lockfile.
#[derive(Debug, Default)]
pub struct Rejections {
    pub path: PathBuf,
    /// Per server, per item ([`item_key`]).
    pub entries: BTreeMap<String, BTreeMap<String, Rejection>>,
    /// The older local file read alongside (removed when this file is next written).
    legacy: Option<PathBuf>,
}

/// The largest rejections file read.
const MAX_FILE: u64 = 16 << 20;

impl Rejections {
    /// `mcp.rejected.json` beside `mcp.lock` (`X.lock` gives `X.rejected.json`, another name
    /// `NAME.rejected.json`).
    pub fn path_for(lockfile: &Path) -> PathBuf {
        let name = lockfile.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "mcp.lock".into());
        let stem = name.strip_suffix(".lock").filter(|s| !s.is_empty()).unwrap_or(&name);
        lockfile.with_file_name(format!("{stem}.rejected.json"))
    }

    /// The file older versions of `review` kept, local and gitignored.
    fn legacy_path(lockfile: &Path) -> PathBuf {
        let name = lockfile.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "mcp.lock".into());
        lockfile.with_file_name(format!(".{name}.rejected"))
    }

    /// Read the rejections of `lockfile`: none when there is no file; an unreadable or malformed
    /// one is an error (a team's decision is never dropped without a word). The older local
    /// `.mcp.lock.rejected` is read too, its entries without reason or date.
    pub fn read(lockfile: &Path) -> Result<Rejections, String> {
        let path = Self::path_for(lockfile);
        let mut entries: BTreeMap<String, BTreeMap<String, Rejection>> =
            match crate::files::read_regular(&path, MAX_FILE) {
                Ok(text) => {
                    let bad = |m: String| format!("{} is not a rejections file: {m}", path.display());
                    let v = crate::json_read::from_str(&text).map_err(|e| bad(e.to_string()))?;
                    match v.get("rejected") {
                        None => BTreeMap::new(),
                        Some(r) => serde_json::from_value(r.clone()).map_err(|e| bad(e.to_string()))?,
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
                Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
            };
        let legacy_path = Self::legacy_path(lockfile);
        let mut legacy = None;
        if let Ok(text) = crate::files::read_regular(&legacy_path, MAX_FILE) {
            let old: BTreeMap<String, BTreeMap<String, String>> = crate::json_read::from_str(&text)
                .ok()
                .and_then(|v| v.get("rejected").cloned())
                .and_then(|v| serde_json::from_value(v).ok())
                .unwrap_or_default();
            for (server, items) in old {
                for (item, digest) in items {
                    entries.entry(server.clone()).or_default().entry(item).or_insert(Rejection {
                        definition: format!("fnv1a-{digest}"),
                        reason: None,
                        date: None,
                        by: None,
                    });
                }
            }
            legacy = Some(legacy_path);
        }
        Ok(Rejections { path, entries, legacy })
    }

    /// Whether an older local file was read (written into this one at the next write).
    pub fn migrating(&self) -> Option<&Path> {
        self.legacy.as_deref()
    }

    /// The rejection of `item` of `server` whose definition is the one `live` has now.
    pub fn matching(&self, server: &str, tool: &Option<String>, live: &ServerSurface) -> Option<&Rejection> {
        let r = self.entries.get(server)?.get(&item_key(tool))?;
        let matches = if let Some(old) = r.definition.strip_prefix("fnv1a-") {
            legacy_digest(live, tool) == old
        } else {
            definition_digest(live, tool) == r.definition
        };
        matches.then_some(r)
    }

    pub fn set(&mut self, server: &str, tool: &Option<String>, rejection: Option<Rejection>) {
        let m = self.entries.entry(server.to_string()).or_default();
        match rejection {
            Some(r) => {
                m.insert(item_key(tool), r);
            }
            None => {
                m.remove(&item_key(tool));
            }
        }
        if m.is_empty() {
            self.entries.remove(server);
        }
    }

    /// Write the file (removed when no rejection is left), and remove the older local one.
    pub fn write(&self) -> std::io::Result<()> {
        if self.entries.is_empty() {
            match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        } else {
            let v = serde_json::json!({
                "about": "mcp-pin: live definitions the team rejected (mcp-pin review); commit this file. `mcp-pin lock` keeps the pinned definition of a rejected one unless given --accept-rejected; remove an entry to lift it (docs/lockfile.md)",
                "rejected": self.entries,
            });
            crate::sink::write_file(&self.path, &crate::json::to_canonical_string(&v))?;
        }
        if let Some(old) = &self.legacy {
            match std::fs::remove_file(old) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }
}

/// What accepting `item` would take from `live`, as a JSON value.
fn item_value(live: &ServerSurface, tool: &Option<String>) -> Value {
    match tool {
        Some(t) => serde_json::json!({ "tool": live.tools.get(t) }),
        None => serde_json::json!({
            "protocolVersion": live.protocol_version,
            "serverInfo": live.server_info,
            "instructions": live.instructions,
            "capabilities": live.capabilities,
        }),
    }
}

/// The digest of `item` of `live` as the lock would pin it: masked ([`ServerSurface::mask_secrets`],
/// so the same on every machine whichever secrets it reads), `sha256-…` over RFC 8785 JSON.
pub fn definition_digest(live: &ServerSurface, tool: &Option<String>) -> String {
    let mut one = ServerSurface {
        tools: match tool {
            Some(t) => live.tools.get(t).map(|v| (t.clone(), v.clone())).into_iter().collect(),
            None => Default::default(),
        },
        ..live.clone()
    };
    one.mask_secrets();
    crate::digest::sha256_of(crate::digest::canonical(&item_value(&one, tool)).as_bytes())
}

/// The digest older versions of `review` kept (FNV-1a over the canonical JSON of the live item).
fn legacy_digest(live: &ServerSurface, tool: &Option<String>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in crate::json::to_canonical_string(&item_value(live, tool)).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_matches_only_the_definition_rejected() {
        let mut s = ServerSurface::default();
        s.tools.insert("t".into(), serde_json::json!({"name": "t", "description": "a"}));
        let mut r = Rejections::default();
        let tool = Some("t".to_string());
        r.set(
            "srv",
            &tool,
            Some(Rejection { definition: definition_digest(&s, &tool), reason: None, date: None, by: None }),
        );
        assert!(r.matching("srv", &tool, &s).is_some());
        s.tools.insert("t".into(), serde_json::json!({"name": "t", "description": "b"}));
        assert!(r.matching("srv", &tool, &s).is_none());
        assert!(r.matching("other", &tool, &s).is_none());
    }

    #[test]
    fn the_file_is_named_after_the_lock() {
        assert_eq!(Rejections::path_for(Path::new("/p/mcp.lock")), Path::new("/p/mcp.rejected.json"));
        assert_eq!(Rejections::path_for(Path::new("/p/x.json")), Path::new("/p/x.json.rejected.json"));
    }
}
