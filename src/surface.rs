//! The surface of one server: what `tools/list` and the handshake said, kept raw.

use std::collections::BTreeMap;

use serde_json::Value;

/// Everything mcp-pin pins for one server. Tools are kept exactly as the server sent them
/// (unknown fields included), keyed by tool name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerSurface {
    /// Negotiated protocol revision, e.g. `2025-11-25`.
    pub protocol_version: String,
    /// `serverInfo` (name, version, title, ...), raw.
    pub server_info: Value,
    /// `instructions` from the handshake, if any.
    pub instructions: Option<String>,
    /// The server's declared capabilities, raw.
    pub capabilities: Value,
    /// Raw tool definitions by name.
    pub tools: BTreeMap<String, Value>,
}
