//! The identity a session presents to its server (`client = "..."`, [`crate::config::identity`]):
//! what rmcp is told, what the `initialize` request carries on the wire (stamped here, on the
//! request as sent, by both transports), the revision offered, and the HTTP `User-Agent`.

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::ClientLifecycleMode;
use serde_json::{Map, Value};

use crate::config::identity::ClientInfo;
use crate::config::ServerConfig;

/// The handshake fields of one server's identity, exactly as they go on the wire.
#[derive(Debug, Clone)]
pub struct Presented {
    pub info: &'static ClientInfo,
    /// `params.clientInfo`.
    pub client_info: Value,
    /// `params.capabilities`: the client's own, or the config's `client_capabilities` instead.
    pub capabilities: Value,
}

impl Presented {
    pub fn of(server: &ServerConfig) -> Presented {
        let info = server.client.info();
        let capabilities = if !server.client_capabilities_set {
            serde_json::from_str(info.capabilities).unwrap_or_else(|_| Value::Object(Map::new()))
        } else {
            Value::Object(server.client_capabilities.iter().map(|c| (c.clone(), Value::Object(Map::new()))).collect())
        };
        Presented {
            info,
            client_info: serde_json::from_str(info.client_info).unwrap_or_else(|_| Value::Object(Map::new())),
            capabilities,
        }
    }

    /// Whether the handshake declares capability `cap`.
    pub fn declares(&self, cap: &str) -> bool {
        self.capabilities.get(cap).is_some()
    }

    /// How rmcp opens the session: mcp-pin's own negotiation (`server/discover` first), or the
    /// client's plain `initialize`.
    pub fn lifecycle(&self) -> ClientLifecycleMode {
        match self.info.protocol_version {
            Some(_) => ClientLifecycleMode::Initialize,
            None => ClientLifecycleMode::Auto {
                preferred_versions: super::PREFERRED_VERSIONS
                    .iter()
                    .map(|v| serde_json::from_value(Value::String((*v).into())).expect("version"))
                    .collect(),
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        }
    }

    /// rmcp's side of the same identity: the name and version, the capabilities its types can
    /// hold (the request as sent carries all of them: [`Presented::stamp`]), the revision to offer.
    pub fn rmcp_config(&self) -> ClientConfig {
        let caps: ClientCapabilities = serde_json::from_value(self.capabilities.clone()).unwrap_or_default();
        let text = |k: &str| self.client_info.get(k).and_then(Value::as_str).map(str::to_string);
        let mut info = Implementation::default();
        info.name = text("name").unwrap_or_default();
        info.version = text("version").unwrap_or_default();
        info.title = text("title");
        info.description = text("description");
        info.icons = None;
        info.website_url = text("websiteUrl");
        let mut config = ClientConfig::new(caps, info);
        config.protocol_version = self
            .info
            .protocol_version
            .and_then(|v| serde_json::from_value(Value::String(v.into())).ok())
            .unwrap_or(ProtocolVersion::V_2025_11_25);
        config
    }

    /// An `initialize` request about to be sent, with the identity's `clientInfo` and
    /// `capabilities` exactly as the client sends them. Other messages are left as they are.
    pub fn stamp(&self, message: &mut Value) {
        if message.get("method").and_then(Value::as_str) != Some("initialize") {
            return;
        }
        if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
            params.insert("clientInfo".into(), self.client_info.clone());
            params.insert("capabilities".into(), self.capabilities.clone());
        }
    }

    /// [`Presented::stamp`] on one line of JSON text (stdio); `None` when it is not an
    /// `initialize` request.
    pub fn stamp_line(&self, line: &[u8]) -> Option<Vec<u8>> {
        let mut message: Value = serde_json::from_slice(line).ok()?;
        if message.get("method").and_then(Value::as_str) != Some("initialize") {
            return None;
        }
        self.stamp(&mut message);
        let mut out = serde_json::to_vec(&message).ok()?;
        out.push(b'\n');
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Client, ServerConfig, Stdio, Transport};

    fn server(client: Client, caps: &[&str]) -> ServerConfig {
        let mut s = ServerConfig::with_defaults(
            "s",
            Transport::Stdio(Stdio {
                command: "x".into(),
                command_template: "x".into(),
                args: vec![],
                args_template: vec![],
                env: Default::default(),
                inherit_env: Default::default(),
                cwd: None,
                cwd_template: None,
                launch: Default::default(),
            }),
        );
        s.client = client;
        s.client_capabilities = caps.iter().map(|c| c.to_string()).collect();
        s.client_capabilities_set = !caps.is_empty();
        s
    }

    #[test]
    fn identity_stamps_the_clients_own_handshake_on_initialize_only() {
        let p = Presented::of(&server(Client::Cursor, &[]));
        let mut init = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcp-pin", "version": "0"}}});
        p.stamp(&mut init);
        assert_eq!(init["params"]["clientInfo"], serde_json::json!({"name": "cursor-vscode", "version": "1.0.0"}));
        assert_eq!(init["params"]["capabilities"]["tools"], true, "non-standard keys go as the client sends them");
        assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
        let mut list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        let before = list.clone();
        p.stamp(&mut list);
        assert_eq!(list, before);
        assert!(p.stamp_line(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).is_none());
        assert!(matches!(p.lifecycle(), ClientLifecycleMode::Initialize));
        assert!(matches!(Presented::of(&server(Client::McpPin, &[])).lifecycle(), ClientLifecycleMode::Auto { .. }));
    }

    #[test]
    fn identity_configured_capabilities_replace_the_clients() {
        let p = Presented::of(&server(Client::ClaudeCode, &["sampling"]));
        assert_eq!(p.capabilities, serde_json::json!({"sampling": {}}));
        assert_eq!(p.rmcp_config().client_info.name, "claude-code");
        let p = Presented::of(&server(Client::ClaudeCode, &[]));
        assert_eq!(p.capabilities, serde_json::json!({"roots": {"listChanged": true}, "elicitation": {}}));
    }
}
