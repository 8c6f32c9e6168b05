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
pub fn init(cwd: &Path, from: Option<&Path>, force: bool) -> Result<InitOutcome, AppError> {
    let source = match from {
        Some(p) => p.to_path_buf(),
        None => crate::config::clients::DISCOVER_ORDER
            .iter()
            .skip(1)
            .map(|f| cwd.join(f))
            .find(|p| p.is_file())
            .ok_or_else(|| AppError::Hinted {
                message: "no client config here (.mcp.json, .vscode/mcp.json, .cursor/mcp.json)".into(),
                hint: "pass one with `mcp-pin init --from PATH` (e.g. claude_desktop_config.json)".into(),
            })?,
    };
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
