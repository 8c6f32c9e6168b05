//! The pinned-text half of settling ([`crate::settle`]): a lock entry whose tools are still the
//! lock's canonical text ([`PendingEntry`]), resolved against a live surface.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::model::ServerEntry;
use super::LockfileError;
use crate::surface::ServerSurface;

/// A server's lock entry whose tools are still the lock's canonical text.
#[derive(Debug, Clone)]
pub struct PendingEntry {
    /// Everything but the tools, parsed.
    pub entry: ServerEntry,
    /// Each tool's text as the lock holds it.
    pub tools: BTreeMap<String, String>,
    /// The line of the lock where each tool begins (for errors).
    pub(super) lines: BTreeMap<String, usize>,
    pub(super) path: PathBuf,
}

/// How deep a tool sits in the lock (`servers` > server > `tools` > tool), for its canonical text.
const TOOL_LEVEL: usize = 4;

/// The message of an error found in a value that begins on line `first` of the lock, with the
/// line and column in the lock (serde_json counts them within the value).
pub(super) fn at_line(e: &serde_json::Error, first: usize) -> String {
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
