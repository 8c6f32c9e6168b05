//! The hidden `mcp-pin conformance-client URL` adapter the official MCP conformance suite runs:
//! it takes the surface the way `lock` does and calls every tool the way the probes do.

use std::collections::BTreeMap;

use super::take;

pub mod oauth;
use crate::client::Session;
use crate::config::ServerConfig;
use crate::exit::ExitStatus;
use crate::surface::ServerSurface;

/// The conformance suite plays the server and runs this with its URL: take the surface the way
/// `lock` does and call every tool the way the probes do. The suite's own checks judge the result.
pub async fn conformance_client(url: &str) -> ExitStatus {
    let mut server = ServerConfig::with_defaults(
        "conformance",
        crate::config::Transport::Http(crate::config::Http {
            url: url.to_string(),
            url_template: url.to_string(),
            launch: crate::config::Launch::http(url),
            headers: BTreeMap::new(),
            allow_redirects: vec![],
            // The suite hands credentials to its client in MCP_CONFORMANCE_CONTEXT.
            oauth: oauth::oauth_from_context(),
        }),
    );
    server.timeout = std::time::Duration::from_secs(20);
    // The suite tests a client of the specification, at each revision: mcp-pin as itself, which
    // negotiates the newest revision (2026-07-28 by server/discover), not an editor's identity.
    server.client = crate::config::Client::McpPin;
    server.probe = crate::config::ProbePolicy::All;
    match take(&server).await {
        Ok((surface, session)) => {
            crate::tell!("conformance: protocol {}, {} tools", surface.protocol_version, surface.tools.len());
            conformance_probe(&session, &server, &surface).await;
            // Schema preservation (after the probes, whose synthesised call would overwrite it):
            // echo the focal tool's inputSchema, exactly as pinned, back to
            // the suite, which compares it with what it sent.
            if let (Some(_), Some(focal)) =
                (surface.tools.get("json_schema_echo"), surface.tools.get("json_schema_2020_12_tool"))
            {
                let mut args = serde_json::Map::new();
                args.insert("schema".into(), focal["inputSchema"].clone());
                let r = session.call_tool("json_schema_echo", args, server.timeout).await;
                crate::tell!("conformance: json_schema_echo: {}", if r.is_ok() { "sent" } else { "failed" });
            }
            session.close().await;
            ExitStatus::Success
        }
        Err(e) => {
            crate::tell!("conformance: {e}");
            ExitStatus::GateFailed
        }
    }
}

/// The probes, as `check` runs them, for the conformance adapter.
async fn conformance_probe(session: &Session, server: &ServerConfig, surface: &ServerSurface) {
    let run = crate::probe::run_in_session(session, server, &surface.tools, None).await;
    for p in &run.probes {
        crate::tell!("conformance: probe {:?} {} {:?}: {}", p.kind, p.tool, p.outcome, p.message);
    }
    // Header-mapped string arguments once more with a value that is not plain ASCII, so the
    // value encoding of x-mcp-header (2026-07-28) is exercised as well as the plain case.
    for (name, def) in &surface.tools {
        if crate::probe::header_mapping_problem(def).is_some() {
            continue;
        }
        let Some(props) = def.pointer("/inputSchema/properties").and_then(serde_json::Value::as_object) else {
            continue;
        };
        let mapped: Vec<&String> = props
            .iter()
            .filter(|(_, s)| {
                s.get("x-mcp-header").is_some() && s.get("type").and_then(|t| t.as_str()) == Some("string")
            })
            .map(|(k, _)| k)
            .collect();
        if mapped.is_empty() {
            continue;
        }
        let Ok(mut args) = crate::probe::synthesize_args(&def["inputSchema"]) else { continue };
        for k in mapped {
            args.insert(k.clone(), serde_json::Value::String("Grüße, 世界 ✓".into()));
        }
        let r = session.call_tool(name, args, server.timeout).await;
        crate::tell!("conformance: {name} with non-ASCII header values: {}", if r.is_ok() { "sent" } else { "failed" });
    }
}
