//! Acceptance: a pinned entry with some of a live entry taken into it (`lock --tool`, `review`).

use super::model::ServerEntry;

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
