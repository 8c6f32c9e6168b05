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

/// A tool whose name holds the value of a configured secret. Every other string of a surface,
/// keys included, is pinned masked; a tool's name is its identity (what a call names, what the
/// lock and every report key the tool by), and a masked one could neither be called nor told
/// apart from another, so [`crate::app`] refuses the surface instead
/// ([`ServerSurface::mask_secrets`]). Displayed masked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretName {
    /// The tool.
    pub tool: Option<String>,
    /// JSON pointer to the key (into the tool, or from the server entry's top); empty for the
    /// tool's own name.
    pub pointer: String,
}

impl std::fmt::Display for SecretName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mask = crate::secrets::mask;
        match &self.tool {
            Some(t) if self.pointer.is_empty() => write!(f, "the name of tool `{}`", mask(t)),
            Some(t) => write!(f, "tool `{}`, the key at {}", mask(t), mask(&self.pointer)),
            None => write!(f, "the key at {}", mask(&self.pointer)),
        }
    }
}

impl ServerSurface {
    /// Mask every secret in the surface, as it is pinned and compared (so a secret's value in a
    /// description or a property's name is `***` on both sides and never drift): every string of
    /// every tool and of the server-level fields, values and keys ([`crate::secrets::mask_json`]).
    /// A tool in which anything was masked has its own digest claims (`schemaHash`,
    /// `contentHash`) masked too: a claim is a hash of the text with the secret, and would
    /// confirm a guess of it offline. Returns the tools whose name holds a secret: a tool's name
    /// is never masked ([`SecretName`]).
    pub fn mask_secrets(&mut self) -> Vec<SecretName> {
        let mut names = Vec::new();
        if !crate::secrets::any_registered() {
            return names;
        }
        crate::secrets::mask_json(&mut self.server_info);
        crate::secrets::mask_json(&mut self.capabilities);
        self.protocol_version = crate::secrets::mask(&self.protocol_version).into_owned();
        if let Some(i) = &mut self.instructions {
            *i = crate::secrets::mask(i).into_owned();
        }
        for (name, tool) in self.tools.iter_mut() {
            if crate::secrets::mask(name) != name.as_str() {
                names.push(SecretName { tool: Some(name.clone()), pointer: String::new() });
            }
            if crate::secrets::mask_json(tool).changed {
                mask_claims(tool);
            }
        }
        names
    }
}

/// A live surface with every configured secret masked, as it is pinned and compared: what
/// settling ([`crate::settle`]) takes. Only [`Live::mask`] makes one, so a surface that reaches
/// the judge has been masked exactly once, whichever front end took it (`check`'s `app::take`,
/// `review`, the proxy's listing and handshake).
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    surface: ServerSurface,
    secret_names: Vec<SecretName>,
}

impl Live {
    /// Mask `surface` ([`ServerSurface::mask_secrets`]), remembering the names that hold a
    /// secret (never masked).
    pub fn mask(mut surface: ServerSurface) -> Live {
        let secret_names = surface.mask_secrets();
        Live { surface, secret_names }
    }

    /// The masked surface.
    pub fn surface(&self) -> &ServerSurface {
        &self.surface
    }

    /// Names (tools', keys') that hold a configured secret's value: names are never masked.
    pub fn secret_names(&self) -> &[SecretName] {
        &self.secret_names
    }

    /// The same masked surface without its tools (the server-level facts alone).
    pub fn without_tools(&self) -> Live {
        Live {
            surface: ServerSurface { tools: Default::default(), ..self.surface.clone() },
            secret_names: self.secret_names.iter().filter(|n| n.tool.is_none()).cloned().collect(),
        }
    }

    /// The masked surface and its secret names.
    pub fn into_parts(self) -> (ServerSurface, Vec<SecretName>) {
        (self.surface, self.secret_names)
    }
}

/// Read-only: a `Live` cannot be changed in place, so it stays as [`Live::mask`] made it.
impl std::ops::Deref for Live {
    type Target = ServerSurface;

    fn deref(&self) -> &ServerSurface {
        &self.surface
    }
}

/// Replace the digests `tool` claims for itself by the mask.
fn mask_claims(tool: &mut Value) {
    let Value::Object(m) = tool else { return };
    let masked = || Value::String(crate::secrets::MASK.to_string());
    for k in crate::digest::CLAIM_KEYS {
        if let Some(v) = m.get_mut(k) {
            *v = masked();
        }
    }
    if let Some(Value::Object(meta)) = m.get_mut("_meta") {
        for (k, v) in meta.iter_mut() {
            if crate::digest::CLAIM_KEYS.iter().any(|c| k.ends_with(c)) {
                *v = masked();
            }
        }
    }
}
