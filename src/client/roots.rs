//! The roots mcp-pin declares to a stdio server (`roots/list`): its working folder (the project
//! folder, or the scratch copy a sandboxed session works in) and the folders named on its command
//! line. A server that confines itself to its client's roots (server-filesystem replaces its
//! command-line folders with them) keeps the folders it was started with, and the probes'
//! arguments may name them (`probe::candidates`).
// rmcp marks roots deprecated (SEP-2577, for a future revision); 2025-11-25 servers use them today.
#![allow(deprecated)]

use std::path::{Path, PathBuf};

use rmcp::model::{ClientConfig, ListRootsResult, Root};
use rmcp::service::{MaybeSendFuture, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};
use serde_json::Value;

use crate::config::Stdio;

/// mcp-pin's side of a session: what it declares, and the roots it answers with.
#[derive(Debug, Clone)]
pub struct Client {
    pub info: ClientConfig,
    pub roots: Vec<Root>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> impl std::future::Future<Output = Result<ListRootsResult, ErrorData>> + MaybeSendFuture + '_ {
        std::future::ready(Ok(ListRootsResult::new(self.roots.clone())))
    }
}

/// The folder a stdio server works in: its configured `cwd`, else mcp-pin's own.
pub fn working_dir(cfg: &Stdio) -> Option<PathBuf> {
    let dir = cfg.cwd.clone().or_else(|| std::env::current_dir().ok())?;
    Some(std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// The roots of a server started as `cfg`: its working folder, then each existing folder named
/// on its command line (`--flag=DIR` too), once each.
pub fn roots(cfg: &Stdio) -> Vec<Root> {
    let Some(base) = working_dir(cfg) else { return vec![] };
    let mut dirs: Vec<PathBuf> = vec![base.clone()];
    for v in cfg.args.iter().filter_map(|a| path_in_argument(a)) {
        let p = base.join(v);
        if p.is_dir() {
            let p = std::fs::canonicalize(&p).unwrap_or(p);
            if !dirs.contains(&p) {
                dirs.push(p);
            }
        }
    }
    dirs.iter().filter_map(|d| root(d)).collect()
}

/// The path a command-line argument may name: the argument itself, or the value of a
/// `--flag=VALUE`; `None` for a bare flag (`-y`, `--verbose`) or an empty value.
pub fn path_in_argument(arg: &str) -> Option<&str> {
    let v = match arg.split_once('=') {
        Some((flag, v)) if flag.starts_with('-') => v,
        _ if arg.starts_with('-') => return None,
        _ => arg,
    };
    (!v.is_empty()).then_some(v)
}

fn root(dir: &Path) -> Option<Root> {
    let url = reqwest::Url::from_directory_path(dir).ok()?;
    let mut r = Root::new(url.as_str().trim_end_matches('/').to_string());
    r.name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    Some(r)
}

/// The roots as a `roots/list` result (for a 2026-07-28 `inputRequests` answer).
pub fn as_result(roots: &[Root]) -> Value {
    serde_json::to_value(ListRootsResult::new(roots.to_vec())).unwrap_or_else(|_| serde_json::json!({"roots": []}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(cwd: &Path, args: &[&str]) -> Stdio {
        Stdio {
            command: "x".into(),
            command_template: "x".into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            args_template: args.iter().map(|s| s.to_string()).collect(),
            env: Default::default(),
            inherit_env: Default::default(),
            cwd: Some(cwd.to_path_buf()),
            cwd_template: None,
            launch: Default::default(),
        }
    }

    #[test]
    fn the_working_folder_then_folders_on_the_command_line() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("data")).unwrap();
        std::fs::write(d.path().join("a.txt"), "").unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        let r = roots(&stdio(d.path(), &["-y", "pkg@1", "data", "--root=.", "a.txt", "missing"]));
        let uris: Vec<&str> = r.iter().map(|r| r.uri.as_str()).collect();
        let want_base = reqwest::Url::from_directory_path(&base).unwrap().as_str().trim_end_matches('/').to_string();
        assert_eq!(uris, [want_base.clone(), format!("{want_base}/data")]);
        assert!(uris.iter().all(|u| u.starts_with("file:///")));
        assert_eq!(as_result(&r)["roots"].as_array().unwrap().len(), 2);
    }
}
