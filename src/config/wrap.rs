//! `mcp-pin init --wrap`: a client config (JSON or JSONC, any format of [`super::clients`])
//! rewritten so that each server the project's `mcp-pin.toml` defines runs through
//! `mcp-pin proxy --server NAME` instead of itself. Pure: text in, text out.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::ConfigError;

/// A rewritten client config.
#[derive(Debug, Clone, PartialEq)]
pub struct Wrapped {
    /// The whole file, rewritten (JSON, two-space indent; comments are not kept).
    pub text: String,
    /// The servers now run through the proxy.
    pub wrapped: Vec<String>,
    /// Things worth a warning: servers left as they were, comments dropped.
    pub warnings: Vec<String>,
}

/// The keys of a server entry that say how to start or reach the server: replaced by the
/// proxy's command. `env` and `envFile` stay (the proxy's process gets what the server got, and
/// `mcp-pin.toml` reads its `${VAR}`s from there).
const HOW: &[&str] = &["command", "args", "cwd", "url", "serverUrl", "httpUrl", "headers", "type", "transport"];

/// Rewrite `text` (the client config at `path`): each server named in `names` (the servers of
/// the `mcp-pin.toml` at `config`) becomes `program --config CONFIG proxy --server NAME`.
pub fn wrap(
    text: &str,
    path: &Path,
    config: &Path,
    names: &BTreeSet<String>,
    program: &str,
) -> Result<Wrapped, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid { path: path.to_path_buf(), message };
    let stripped = super::clients::strip_jsonc(text);
    let mut root: Value = serde_json::from_str(&stripped).map_err(|e| invalid(format!("invalid JSON: {e}")))?;
    let Value::Object(top) = &root else {
        return Err(invalid("expected a JSON object at the top".into()));
    };
    let found = super::clients::FORMATS.iter().find_map(|f| (f.servers)(top).map(|s| (f, s)));
    let Some((format, table)) = found else {
        return Err(invalid("no server table of a client config mcp-pin reads (`mcpServers`, `servers`)".into()));
    };
    let vscode = format.format == super::Format::VsCode;
    let Some(pointer) = pointer_of(&root, table) else {
        return Err(invalid("the server table could not be found again".into()));
    };
    let Some(Value::Object(servers)) = root.pointer_mut(&pointer) else {
        return Err(invalid(format!("`{}` must be an object of servers by name", format.key)));
    };
    let mut out = Wrapped { text: String::new(), wrapped: vec![], warnings: vec![] };
    for (name, entry) in servers.iter_mut() {
        let Value::Object(e) = entry else { continue };
        if is_wrapped(e, program) {
            continue;
        }
        if !names.contains(name) {
            out.warnings.push(format!(
                "server `{name}` is not in {}; left as it is (add it there, `mcp-pin lock --server {name}`, then wrap again)",
                config.display()
            ));
            continue;
        }
        e.retain(|k, _| !HOW.contains(&k.as_str()));
        if vscode {
            e.insert("type".into(), Value::String("stdio".into()));
        }
        e.insert("command".into(), Value::String(program.to_string()));
        let args = ["--config", &config.display().to_string(), "proxy", "--server", name];
        e.insert("args".into(), Value::Array(args.iter().map(|a| Value::String(a.to_string())).collect()));
        out.wrapped.push(name.clone());
    }
    if stripped != text {
        out.warnings.push("the original's comments (and trailing commas) are not in the rewritten file".into());
    }
    out.text = serde_json::to_string_pretty(&root).map_err(|e| invalid(e.to_string()))? + "\n";
    Ok(out)
}

/// Whether an entry already runs the proxy.
fn is_wrapped(e: &Map<String, Value>, program: &str) -> bool {
    let cmd = e.get("command").and_then(Value::as_str).unwrap_or("");
    let args: Vec<&str> = e
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    (cmd == program || cmd.ends_with("/mcp-pin")) && args.contains(&"proxy")
}

/// The JSON pointer of `target` (a value inside `root`, found by identity), at most two levels down.
fn pointer_of(root: &Value, target: &Value) -> Option<String> {
    let Value::Object(top) = root else { return None };
    for (k, v) in top {
        if std::ptr::eq(v, target) {
            return Some(format!("/{}", escape(k)));
        }
        if let Value::Object(inner) = v {
            for (k2, v2) in inner {
                if std::ptr::eq(v2, target) {
                    return Some(format!("/{}/{}", escape(k), escape(k2)));
                }
            }
        }
    }
    None
}

fn escape(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_gets_the_proxy_command_and_keeps_env() {
        let names: BTreeSet<String> = ["weather".to_string()].into();
        let claude = r#"{"mcpServers": {"weather": {"command": "node", "args": ["w.js"], "env": {"K": "${K}"}}, "other": {"command": "x"}}}"#;
        let w = wrap(claude, Path::new(".mcp.json"), Path::new("/p/mcp-pin.toml"), &names, "mcp-pin").unwrap();
        let v: Value = serde_json::from_str(&w.text).unwrap();
        assert_eq!(v["mcpServers"]["weather"]["command"], "mcp-pin");
        assert_eq!(
            v["mcpServers"]["weather"]["args"],
            serde_json::json!(["--config", "/p/mcp-pin.toml", "proxy", "--server", "weather"])
        );
        assert_eq!(v["mcpServers"]["weather"]["env"]["K"], "${K}");
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(w.wrapped, vec!["weather".to_string()]);
        assert_eq!(w.warnings.len(), 1);
        // Wrapping twice changes nothing.
        let again = wrap(&w.text, Path::new(".mcp.json"), Path::new("/p/mcp-pin.toml"), &names, "mcp-pin").unwrap();
        assert_eq!(again.text, w.text);
        assert!(again.wrapped.is_empty());

        let vscode = "{\n  // servers\n  \"servers\": {\"weather\": {\"type\": \"http\", \"url\": \"https://x/mcp\", \"headers\": {\"A\": \"b\"}}}\n}";
        let w = wrap(vscode, Path::new(".vscode/mcp.json"), Path::new("/p/mcp-pin.toml"), &names, "mcp-pin").unwrap();
        let v: Value = serde_json::from_str(&w.text).unwrap();
        assert_eq!(v["servers"]["weather"]["type"], "stdio");
        assert!(v["servers"]["weather"].get("url").is_none() && v["servers"]["weather"].get("headers").is_none());
        assert!(w.warnings.iter().any(|w| w.contains("comments")));
    }
}
