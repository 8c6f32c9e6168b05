//! `mcp-pin init`: a commented mcp-pin.toml written from a client config found here (or named
//! with `--from`).

use std::path::{Path, PathBuf};

use super::AppError;
use crate::config::Config;

/// What `init` wrote.
#[derive(Debug)]
pub struct InitOutcome {
    pub target: PathBuf,
    pub source: PathBuf,
    /// Which client's format the source is in.
    pub source_format: String,
    pub servers: usize,
    pub warnings: Vec<String>,
}

/// Convert the client config `from` (or the first one found in `cwd`) into `cwd/mcp-pin.toml`.
/// The client config `from`, or the first one found in `cwd`.
fn client_config(cwd: &Path, from: Option<&Path>, hint: &str) -> Result<PathBuf, AppError> {
    match from {
        Some(p) => Ok(p.to_path_buf()),
        None => {
            crate::config::clients::DISCOVER_ORDER.iter().skip(1).map(|f| cwd.join(f)).find(|p| p.is_file()).ok_or_else(
                || AppError::Hinted {
                    message: "no client config here (.mcp.json, .vscode/mcp.json, .cursor/mcp.json)".into(),
                    hint: hint.into(),
                },
            )
        }
    }
}

pub fn init(cwd: &Path, from: Option<&Path>, force: bool) -> Result<InitOutcome, AppError> {
    let source =
        client_config(cwd, from, "pass one with `mcp-pin init --from PATH` (e.g. claude_desktop_config.json)")?;
    let target = cwd.join("mcp-pin.toml");
    if target.exists() && !force {
        return Err(AppError::Hinted {
            message: format!("{} exists", target.display()),
            hint: "`mcp-pin init --force` overwrites it".into(),
        });
    }
    let loaded = Config::load_unresolved(&source).map_err(|e| AppError::Io(e.to_string()))?;
    let text = crate::config::init::init_toml_from(&loaded, &source);
    crate::sink::write_file(&target, &text)
        .map_err(|e| AppError::Io(format!("cannot write {}: {e}", target.display())))?;
    Ok(InitOutcome {
        target,
        source,
        source_format: loaded.source.to_string(),
        servers: loaded.config.servers.len(),
        warnings: loaded.warnings,
    })
}

/// What `init --wrap` produced.
#[derive(Debug)]
pub struct WrapOutcome {
    /// The client config rewritten.
    pub source: PathBuf,
    /// The `mcp-pin.toml` the proxy reads the servers from.
    pub config: PathBuf,
    /// How many servers now run through the proxy.
    pub servers: usize,
    /// The rewritten client config.
    pub text: String,
}

/// The client config `from` (or the first one found in `cwd`) rewritten so each server that
/// `config` (default `cwd/mcp-pin.toml`, which `mcp-pin init` writes) defines runs through
/// `mcp-pin proxy`; written over the original only when `write`.
pub fn wrap(cwd: &Path, from: Option<&Path>, config: Option<&Path>, write: bool) -> Result<WrapOutcome, AppError> {
    let source = client_config(cwd, from, "pass the client config to wrap with `mcp-pin init --wrap --from PATH`")?;
    let config = config.map(Path::to_path_buf).unwrap_or_else(|| cwd.join("mcp-pin.toml"));
    let config = std::fs::canonicalize(&config).map_err(|_| AppError::Hinted {
        message: format!("no {} for the proxy to read the servers from", config.display()),
        hint: "run `mcp-pin init` first (it writes mcp-pin.toml from the client config), then `mcp-pin lock`, then `mcp-pin init --wrap`".into(),
    })?;
    let loaded = Config::load_unresolved(&config).map_err(|e| AppError::Io(e.to_string()))?;
    if loaded.format != crate::config::Format::McpPin {
        return Err(AppError::Hinted {
            message: format!("{} is a client config: the wrapped client config cannot also be where the proxy reads the servers from", config.display()),
            hint: "run `mcp-pin init` to write mcp-pin.toml, and wrap the client config with it".into(),
        });
    }
    let names = loaded.config.servers.keys().cloned().collect();
    let text = crate::files::read_regular(&source, crate::config::MAX_CONFIG)
        .map_err(|e| AppError::Io(format!("cannot read {}: {e}", source.display())))?;
    let wrapped = crate::config::wrap::wrap(&text, &source, &config, &names, "mcp-pin")?;
    for w in &wrapped.warnings {
        crate::tell!("warning: {w}");
    }
    if write {
        crate::sink::write_file(&source, &wrapped.text)
            .map_err(|e| AppError::Io(format!("cannot write {}: {e}", source.display())))?;
    }
    Ok(WrapOutcome { source, config, servers: wrapped.wrapped.len(), text: wrapped.text })
}
