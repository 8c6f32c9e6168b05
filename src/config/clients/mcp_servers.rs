//! Configs with a top-level `mcpServers` object: Claude Code `.mcp.json`, Claude Desktop
//! `claude_desktop_config.json`, Cursor `.cursor/mcp.json` (and Cline, Windsurf-style files of the
//! same shape).

use serde_json::{Map, Value};

use super::ClientFormat;
use crate::config::{Client, Format};

pub(super) const FORMAT: ClientFormat = ClientFormat {
    format: Format::McpServers,
    key: "mcpServers",
    servers,
    source,
    clients: "Claude Code .mcp.json, Claude Desktop, Cursor",
    client,
};

fn servers(root: &Map<String, Value>) -> Option<&Value> {
    root.get("mcpServers")
}

fn source(folder: &str, file: &str) -> String {
    if folder == ".cursor" {
        "Cursor (.cursor/mcp.json)".to_string()
    } else if file == "claude_desktop_config.json" {
        "Claude Desktop (claude_desktop_config.json)".to_string()
    } else if file == ".mcp.json" {
        "Claude Code (.mcp.json)".to_string()
    } else {
        format!("`mcpServers` JSON ({file})")
    }
}

fn client(folder: &str, file: &str) -> Client {
    if folder == ".cursor" {
        Client::Cursor
    } else if file == "claude_desktop_config.json" {
        Client::ClaudeDesktop
    } else {
        Client::ClaudeCode
    }
}
