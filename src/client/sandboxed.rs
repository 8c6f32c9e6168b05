//! The second session of a stdio server, started inside the sandbox ([`crate::sandbox`]): the
//! same command with its project paths rewritten to a scratch copy, its own home, temp and cache
//! folders, package runners offline, under the sandbox confinement.

use serde_json::{Map, Value};

use super::{ClientError, Session};
use crate::config::{ServerConfig, Transport};
use crate::sandbox::scratch::Scratch;
use crate::sandbox::{Confinement, Place};

/// Why a sandboxed session could not be had.
#[derive(Debug, thiserror::Error)]
pub enum NoSandbox {
    /// No complete sandbox for this server here (the platform, the kernel, a remote server, a
    /// project folder that cannot be copied): its tools are skipped, never called bare.
    #[error("{0}")]
    Unavailable(String),
    /// The sandbox was applied and the server did not start inside it.
    #[error("the server did not start in the sandbox: {0}")]
    Start(ClientError),
}

impl Session {
    /// A second session of `server` inside the sandbox. The project folder is the server's
    /// `cwd` (mcp-pin's own working folder when it has none).
    pub async fn connect_sandboxed(server: &ServerConfig) -> Result<Session, NoSandbox> {
        let Transport::Stdio(cfg) = &server.transport else {
            return Err(NoSandbox::Unavailable("a remote server (`url`) cannot be started in a sandbox".into()));
        };
        crate::sandbox::available().map_err(NoSandbox::Unavailable)?;
        let project = match &cfg.cwd {
            Some(d) => d.clone(),
            None => std::env::current_dir().map_err(|e| NoSandbox::Unavailable(format!("no working folder: {e}")))?,
        };
        let scratch = Scratch::create(&project).map_err(NoSandbox::Unavailable)?;
        let visible_elsewhere = scratch.hidden()
            && project.canonicalize().is_ok_and(|p| !crate::sandbox::scratch::visible_bases(&p).is_empty());
        match Session::start_in(server, cfg, scratch).await {
            // A server that refused a scratch copy with a hidden folder in its path (as some refuse
            // the temp folder) gets one more start in a copy beside the project, when there is one.
            Err(NoSandbox::Start(e)) if visible_elsewhere => match Scratch::create_visible(&project) {
                Ok(visible) => Session::start_in(server, cfg, visible).await,
                Err(_) => Err(NoSandbox::Start(e)),
            },
            other => other,
        }
    }

    /// The sandboxed session of `server` (stdio config `cfg`) in `scratch`.
    async fn start_in(
        server: &ServerConfig,
        cfg: &crate::config::Stdio,
        mut scratch: Scratch,
    ) -> Result<Session, NoSandbox> {
        let own = |name: &str| std::env::var(name).ok();
        let mut inside = cfg.clone();
        // `npx -y pkg@1.2.3`: the program npx would start, started directly (no npm, no seeded
        // npm cache: `crate::sandbox::runner`).
        let env = super::stdio::child_env(cfg);
        let npm_cache = env
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("npm_config_cache"))
            .map(|(_, v)| std::path::PathBuf::from(v))
            .or_else(|| own("HOME").map(|h| std::path::Path::new(&h).join(".npm")));
        if let Some((command, args)) =
            npm_cache.and_then(|c| crate::sandbox::runner::direct(&cfg.command, &cfg.args, &c))
        {
            inside.command = command;
            inside.args = args;
        }
        inside.args = inside.args.iter().map(|a| scratch.remap(a).unwrap_or_else(|| a.clone())).collect();
        inside.env = scratch.env(&env, &own, &inside.command).into_iter().collect();
        inside.inherit_env.clear();
        inside.cwd = Some(scratch.project());
        if let Some(c) = scratch.remap(&cfg.command).filter(|_| cfg.command.contains('/')) {
            inside.command = c;
        }
        // A server that writes beside its own code writes beside a copy of it
        // (`crate::sandbox::own_code`); one that does not start from the copy is started from
        // its installation, as without it.
        let path_env = inside.env.get("PATH").map(String::as_str);
        let cwd = inside.cwd.as_deref();
        // The real home folder is withheld but for what servers read of it, its installation
        // included (`crate::sandbox::scratch::HOME_OPEN`).
        scratch.open_installation(crate::sandbox::own_code::installation(&inside.command, &inside.args, path_env, cwd));
        let withheld = |p: &std::path::Path| scratch.withholds(p);
        let copied =
            crate::sandbox::own_code::copy(&inside.command, &inside.args, path_env, cwd, scratch.root(), &withheld)
                .map(|own| {
                    let mut from_copy = inside.clone();
                    from_copy.command = own.command;
                    from_copy.args = own.args;
                    if let Some(dir) = own.python_path {
                        let dir = dir.to_string_lossy().into_owned();
                        let path = match from_copy.env.get("PYTHONPATH").filter(|p| !p.is_empty()) {
                            Some(p) => format!("{dir}:{p}"),
                            None => dir,
                        };
                        from_copy.env.insert("PYTHONPATH".into(), path);
                    }
                    from_copy
                });
        let root = scratch.root().to_path_buf();
        let (hide, open) = (scratch.unreadable(), scratch.open.clone());
        let confined = Confinement::Sandbox { write: &root, hide: &hide, open: &open };
        let mut session = None;
        if let Some(from_copy) = copied {
            match Self::connect_as(server, from_copy, confined).await {
                Ok(s) => session = Some(s),
                Err(NoSandbox::Start(_)) => {}
                Err(unavailable) => return Err(unavailable),
            }
        }
        let mut s = match session {
            Some(s) => s,
            None => Self::connect_as(server, inside, confined).await?,
        };
        s.scratch = Some(scratch);
        Ok(s)
    }

    /// `server` started as `inside` says, confined.
    async fn connect_as(
        server: &ServerConfig,
        inside: crate::config::Stdio,
        confined: Confinement<'_>,
    ) -> Result<Session, NoSandbox> {
        let mut config = server.clone();
        config.transport = Transport::Stdio(inside);
        Session::connect_confined(&config, confined).await.map_err(|e| {
            // The helper says so on stderr when the confinement could not be applied: the
            // server never ran, and there is no sandbox here after all.
            let text = e.to_string();
            let failed = crate::sandbox::helper::CONFINEMENT_FAILED_TEXT;
            match text.find(failed) {
                Some(at) => {
                    let why = text[at..].lines().next().unwrap_or(failed).trim_start_matches("mcp-pin helper: ");
                    NoSandbox::Unavailable(why.to_string())
                }
                None => NoSandbox::Start(e),
            }
        })
    }

    /// Keep the sandbox's copy of the project as it is now, to put it back before each tool that
    /// destroys things ([`crate::sandbox::keep`]); `false` outside the sandbox or when it was not.
    pub fn keep_project(&mut self) -> bool {
        self.scratch.as_mut().is_some_and(|s| s.keep())
    }

    /// Put back the copy kept by [`Session::keep_project`]; `false` when there is none.
    pub fn put_back_project(&mut self) -> bool {
        self.scratch.as_mut().is_some_and(|s| s.put_back())
    }

    /// Where this session runs.
    pub fn place(&self) -> Place {
        if self.scratch.is_some() {
            Place::Sandbox
        } else {
            Place::Session
        }
    }

    /// A call's outcome as read outside the sandbox: the copy's paths written as the project's.
    pub(super) fn outcome_outside(&self, outcome: super::CallOutcome) -> super::CallOutcome {
        let Some(s) = &self.scratch else { return outcome };
        match outcome {
            super::CallOutcome::Result(mut v) => {
                s.unmap_json(&mut v);
                super::CallOutcome::Result(v)
            }
            super::CallOutcome::RpcError { code, message } => {
                super::CallOutcome::RpcError { code, message: s.unmap(&message) }
            }
            other => other,
        }
    }

    /// Tool arguments as this session's server must see them: in the sandbox, a path (or
    /// `file://` URI) into the project folder names the same file in the scratch copy.
    pub(super) fn in_place(&self, mut arguments: Map<String, Value>) -> Map<String, Value> {
        if let Some(s) = &self.scratch {
            arguments.values_mut().for_each(|v| s.remap_json(v));
        }
        arguments
    }
}
