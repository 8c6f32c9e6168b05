//! VS Code: `.vscode/mcp.json` (JSONC) with a top-level `servers` object, or the older
//! `settings.json` form with `mcp.servers`.

use serde_json::{Map, Value};

use super::ClientFormat;
use crate::config::{Client, Format};

pub(super) const FORMAT: ClientFormat = ClientFormat {
    format: Format::VsCode,
    key: "servers",
    servers,
    source,
    clients: "VS Code .vscode/mcp.json",
    client: |_, _| Client::VsCode,
};

fn servers(root: &Map<String, Value>) -> Option<&Value> {
    root.get("servers").or_else(|| root.get("mcp").and_then(|m| m.get("servers")))
}

fn source(_folder: &str, _file: &str) -> String {
    "VS Code (.vscode/mcp.json)".to_string()
}
