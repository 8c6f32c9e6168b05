//! The lock model: what `mcp.lock` holds for each server ([`ServerEntry`]) and the whole
//! lock ([`Lockfile`]). Reading it is [`super::read`], writing it [`super::write`].

use std::collections::BTreeMap;

use serde_json::Value;

use super::NORMALIZER_VERSION;
use crate::config::Launch;
use crate::surface::ServerSurface;

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
}
