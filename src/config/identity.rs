//! Which MCP client mcp-pin presents itself as (`client = "..."`, docs/config.md).
//!
//! A server may serve one surface to a name it recognises as a gate and another to the editors a
//! model works through (cloaking). So by default mcp-pin introduces itself the way the client it
//! pins for does: the one whose config it read (Claude Code for `.mcp.json`, VS Code for
//! `.vscode/mcp.json`, Cursor for `.cursor/mcp.json`, Claude Desktop for its own file) and Claude
//! Code, the most used one, for `mcp-pin.toml` and ad-hoc servers. Each client's handshake is one
//! row of [`CLIENTS`], as published captures of that client show it on the wire; mcp-pin sends it
//! as written. What this covers and what it cannot: docs/security.md ("Cloaking").

/// A client mcp-pin can present itself as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Client {
    #[default]
    ClaudeCode,
    ClaudeDesktop,
    VsCode,
    Cursor,
    /// mcp-pin as itself: `clientInfo.name = "mcp-pin"`, the stateless 2026-07-28 revision first.
    McpPin,
}

/// One client's handshake as it appears on the wire.
#[derive(Debug)]
pub struct ClientInfo {
    pub client: Client,
    /// The value of `client = "..."` in `mcp-pin.toml`.
    pub key: &'static str,
    /// The client and version, for messages and docs.
    pub name: &'static str,
    /// `initialize`'s `params.clientInfo`, exactly as the client sends it.
    pub client_info: &'static str,
    /// `initialize`'s `params.capabilities`, exactly as the client sends it (non-standard keys
    /// included: Cursor declares `"tools": true`).
    pub capabilities: &'static str,
    /// The revision offered in `initialize`; `None`: mcp-pin's own negotiation (`server/discover`
    /// for 2026-07-28 first, then `initialize` offering 2025-11-25).
    pub protocol_version: Option<&'static str>,
    /// The `User-Agent` of its HTTP requests (`None`: no such header).
    pub user_agent: Option<&'static str>,
    /// Where the row comes from.
    pub observed: &'static str,
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Every client mcp-pin can present itself as. Update a row when the client's handshake changes.
pub const CLIENTS: &[ClientInfo] = &[
    ClientInfo {
        client: Client::ClaudeCode,
        key: "claude-code",
        name: "Claude Code 2.1.233",
        client_info: r#"{"name":"claude-code","title":"Claude Code","version":"2.1.233","description":"Anthropic's agentic coding tool","websiteUrl":"https://claude.com/claude-code"}"#,
        capabilities: r#"{"roots":{"listChanged":true},"elicitation":{}}"#,
        protocol_version: Some("2025-11-25"),
        user_agent: Some("claude-code/2.1.233 (cli)"),
        observed: "captures of Claude Code 2.1.221 and 2.1.233 (2026-08): initialize at 2025-11-25, no server/discover",
    },
    ClientInfo {
        client: Client::ClaudeDesktop,
        key: "claude-desktop",
        name: "Claude Desktop",
        client_info: r#"{"name":"claude-ai","version":"0.1.0"}"#,
        capabilities: "{}",
        protocol_version: Some("2025-11-25"),
        user_agent: None,
        observed: "captures of Claude Desktop's chat client (2025-12, 2026-09)",
    },
    ClientInfo {
        client: Client::VsCode,
        key: "vscode",
        name: "VS Code 1.140.0",
        client_info: r#"{"name":"Visual Studio Code","version":"1.140.0"}"#,
        capabilities: r#"{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}},"tasks":{"list":{},"cancel":{},"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}"#,
        protocol_version: Some("2025-11-25"),
        user_agent: Some("Visual Studio Code/1.140.0"),
        observed: "VS Code's MCP trace logs, 1.124 to 1.140 (2026-06 to 2026-10): initialize at 2025-11-25, no server/discover",
    },
    ClientInfo {
        client: Client::Cursor,
        key: "cursor",
        name: "Cursor",
        client_info: r#"{"name":"cursor-vscode","version":"1.0.0"}"#,
        capabilities: r#"{"tools":true,"prompts":true,"resources":true,"logging":false,"elicitation":{},"roots":{"listChanged":false}}"#,
        protocol_version: Some("2025-11-25"),
        user_agent: Some("node"),
        observed: "captures of Cursor (2026-01; 3.20.17, 2026-09): clientInfo cursor-vscode 1.0.0, initialize at 2025-11-25",
    },
    ClientInfo {
        client: Client::McpPin,
        key: "mcp-pin",
        name: "mcp-pin",
        client_info: concat!(r#"{"name":"mcp-pin","version":""#, env!("CARGO_PKG_VERSION"), r#""}"#),
        capabilities: "{}",
        protocol_version: None,
        user_agent: Some(concat!("mcp-pin/", env!("CARGO_PKG_VERSION"))),
        observed: "mcp-pin itself",
    },
];

impl Client {
    /// Its row of [`CLIENTS`].
    pub fn info(self) -> &'static ClientInfo {
        CLIENTS.iter().find(|c| c.client == self).expect("every client has a row")
    }

    /// The client named `key` (`client = "..."`).
    pub fn from_key(key: &str) -> Option<Client> {
        CLIENTS.iter().find(|c| c.key == key).map(|c| c.client)
    }

    /// Every key, for messages.
    pub fn keys() -> impl Iterator<Item = &'static str> {
        CLIENTS.iter().map(|c| c.key)
    }
}

/// mcp-pin's own version (in its own `clientInfo` and `User-Agent`).
pub fn version() -> &'static str {
    VERSION
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_every_client_row_is_valid_json_and_named_once() {
        for c in CLIENTS {
            let info: serde_json::Value = serde_json::from_str(c.client_info).expect(c.key);
            assert!(info["name"].is_string() && info["version"].is_string(), "{}", c.key);
            let caps: serde_json::Value = serde_json::from_str(c.capabilities).expect(c.key);
            assert!(caps.is_object(), "{}", c.key);
            assert_eq!(Client::from_key(c.key), Some(c.client));
            assert_eq!(c.client.info().key, c.key);
        }
        assert_eq!(CLIENTS.len(), Client::keys().collect::<std::collections::BTreeSet<_>>().len());
        assert!(Client::McpPin.info().client_info.contains(version()));
        // Only mcp-pin itself says `mcp-pin` anywhere in its handshake.
        for c in CLIENTS.iter().filter(|c| c.client != Client::McpPin) {
            let all = format!("{} {} {:?}", c.client_info, c.capabilities, c.user_agent);
            assert!(!all.to_lowercase().contains("mcp-pin"), "{all}");
        }
    }
}
