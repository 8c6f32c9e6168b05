//! `mcp-pin init`: a commented mcp-pin.toml written from a client config found here (or named
//! with `--from`).

use std::collections::BTreeMap;
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
    within_project(cwd, &target)?;
    let mut loaded = Config::load_unresolved(&source).map_err(|e| AppError::Io(e.to_string()))?;
    let kept = keep_wrapped(&source, &target, &mut loaded)?;
    let text = crate::config::init::init_toml_keeping(&loaded, &source, &kept);
    crate::sink::write_file(&target, &text)
        .map_err(|e| AppError::Io(format!("cannot write {}: {e}", target.display())))?;
    Ok(InitOutcome {
        target,
        source,
        source_format: loaded.source.to_string(),
        servers: loaded.config.servers.len() + kept.keys().filter(|k| !loaded.config.servers.contains_key(*k)).count(),
        warnings: loaded.warnings,
    })
}

/// The entries of the client config `source` that run the proxy (`init --wrap` wrote them) say
/// nothing of how to start their server: each is taken from the existing `mcp-pin.toml`
/// (`target`, its sections as written: returned), else from the entry `--wrap` kept beside the
/// client config (put into `loaded`), else left out with a warning. Never `command = "mcp-pin"`.
fn keep_wrapped(
    source: &Path,
    target: &Path,
    loaded: &mut crate::config::Loaded,
) -> Result<BTreeMap<String, String>, AppError> {
    let mut kept = BTreeMap::new();
    let text = read(source)?;
    let wrapped = crate::config::wrap::wrapped_entries(&text);
    if wrapped.is_empty() {
        return Ok(kept);
    }
    let old = if target.is_file() { Some(read(target)?) } else { None };
    let old_config = old.as_deref().and_then(|t| Config::parse_with(t, target, None).ok());
    let originals = read_originals(source)?;
    for name in wrapped {
        loaded.config.servers.remove(&name);
        let section = old.as_deref().and_then(|t| crate::config::init::server_sections(t, &name)).or_else(|| {
            let server = old_config.as_ref()?.config.servers.get(&name)?;
            Some(crate::config::init::server_toml(&name, server))
        });
        if let Some(section) = section {
            kept.insert(name, section);
            continue;
        }
        if let Some(original) = originals.get(&name) {
            let key = if loaded.format == crate::config::Format::VsCode { "servers" } else { "mcpServers" };
            let doc = format!("{{{}: {{{}: {original}}}}}", json_string(key), json_string(&name));
            let one = Config::parse_with(&doc, source, None).map_err(|e| AppError::Io(e.to_string()))?;
            loaded.config.servers.extend(one.config.servers);
            loaded.env_files.extend(one.env_files);
            continue;
        }
        let why = format!(
            "{} runs it through `mcp-pin proxy`, and neither mcp-pin.toml nor {} says how to start it",
            source.display(),
            originals_path(source).display()
        );
        loaded.warnings.push(format!("server `{name}` is left out: {why}; add it to mcp-pin.toml by hand"));
        loaded.skipped.push((name, why));
    }
    Ok(kept)
}

/// `path` is written (or removed) by `init` only when no link on its way from the project folder
/// (`cwd`) leads out of it: neither the file itself nor any folder on its path inside the project
/// may be a link that resolves outside it (a committed `.vscode -> ../outside` would have
/// `init --wrap --write` rewrite a config, and leave its `.before-wrap.json`, on whatever the
/// link names). Decided on real paths (a `..` after a link is where the link leads); a path
/// that names no place inside the project (a user-level file given with `--from`) is the user's
/// own choice, and not checked.
fn within_project(cwd: &Path, path: &Path) -> Result<(), AppError> {
    let Ok(project) = std::fs::canonicalize(cwd) else { return Ok(()) };
    let path = cwd.join(path);
    let named = lexical(&path);
    let Some(rel) = [cwd, project.as_path()].iter().find_map(|base| path.strip_prefix(base).ok().map(|r| (*base, r)))
    else {
        if named.starts_with(cwd) || named.starts_with(&project) {
            // Inside by name, but not by the way it is written (`/a/../project/x`): by real path below.
            return real_parent_inside(&project, &path, &path);
        }
        return Ok(());
    };
    if !(named.starts_with(cwd) || named.starts_with(&project)) {
        return Ok(());
    }
    // The first link on the way that leads out names the refusal.
    let (base, rel) = rel;
    let mut at = base.to_path_buf();
    for part in rel.components() {
        at.push(part);
        let Ok(meta) = std::fs::symlink_metadata(&at) else { break };
        if meta.file_type().is_symlink() && !std::fs::canonicalize(&at).is_ok_and(|r| r.starts_with(&project)) {
            return Err(refusal(&project, &path, &at));
        }
    }
    real_parent_inside(&project, &path, &path)
}

/// The folder `path` is written in, by its real path (its nearest folder that exists), is inside
/// `project`; else refused naming `link`.
fn real_parent_inside(project: &Path, path: &Path, link: &Path) -> Result<(), AppError> {
    let mut folder = path.parent();
    while let Some(f) = folder {
        if let Ok(real) = std::fs::canonicalize(f) {
            if real.starts_with(project) {
                return Ok(());
            }
            return Err(refusal(project, path, link));
        }
        folder = f.parent();
    }
    Ok(())
}

fn refusal(project: &Path, path: &Path, link: &Path) -> AppError {
    let points = std::fs::read_link(link).map(|t| format!(" -> {}", t.display())).unwrap_or_default();
    let leads = match std::fs::canonicalize(link) {
        Ok(r) => format!("which leads to {}", r.display()),
        Err(_) => "which leads to nothing that exists yet (a write would create it wherever it names)".into(),
    };
    let what = if link == path { "is a link" } else { "is reached through a link" };
    AppError::Hinted {
        message: format!(
            "refusing to write {}: it {what}, {}{points}, {leads}, outside the project folder {}",
            path.display(),
            link.display(),
            project.display()
        ),
        hint: format!(
            "a committed link can lead anywhere on the machine that runs mcp-pin; replace {} with the file or folder itself, inside the project (or run mcp-pin where the file really is)",
            link.display()
        ),
    }
}

/// `path` with `.` and `..` taken out, without reading the disk: whether it names a place inside
/// the project at all (the links on the way are then checked on the disk).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn read(path: &Path) -> Result<String, AppError> {
    crate::files::read_regular(path, crate::config::MAX_CONFIG)
        .map_err(|e| AppError::Io(format!("cannot read {}: {e}", path.display())))
}

/// Where `init --wrap --write` keeps the entries it replaced: beside the client config
/// (`.mcp.json` → `.mcp.json.before-wrap.json`), to be committed with it.
pub fn originals_path(source: &Path) -> PathBuf {
    let mut name = source.file_name().unwrap_or_default().to_os_string();
    name.push(".before-wrap.json");
    source.with_file_name(name)
}

/// The entries kept by earlier `--wrap --write` runs, by server (none when there is no file).
fn read_originals(source: &Path) -> Result<BTreeMap<String, String>, AppError> {
    let path = originals_path(source);
    if !path.exists() {
        return Ok(BTreeMap::new());
    }
    let v: serde_json::Value = serde_json::from_str(&read(&path)?)
        .map_err(|e| AppError::Io(format!("{} is not the JSON `mcp-pin init --wrap` writes: {e}", path.display())))?;
    Ok(v.get("entries")
        .and_then(|e| e.as_object())
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
        .unwrap_or_default())
}

fn write_originals(source: &Path, entries: &BTreeMap<String, String>) -> Result<(), AppError> {
    let path = originals_path(source);
    let file = source.file_name().unwrap_or_default().to_string_lossy();
    let v = serde_json::json!({
        "about": format!(
            "Written by `mcp-pin init --wrap --write`: the entries of {file} it replaced, as they were written. \
             `mcp-pin init --unwrap --write` puts them back; `mcp-pin init --force` reads from here how to start a \
             server mcp-pin.toml lacks. Commit it with {file}."
        ),
        "entries": entries,
    });
    let text = serde_json::to_string_pretty(&v).map_err(|e| AppError::Io(e.to_string()))? + "\n";
    crate::sink::write_file(&path, &text).map_err(|e| AppError::Io(format!("cannot write {}: {e}", path.display())))?;
    // It holds what the client config held (a user-level file's literal keys): readable by whom
    // the client config is.
    if let Ok(m) = std::fs::metadata(source) {
        let _ = std::fs::set_permissions(&path, m.permissions());
    }
    Ok(())
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
    /// What each wrapped entry hands the proxy: (variable, value in the client's syntax).
    pub handovers: BTreeMap<String, Vec<(String, String)>>,
}

/// The client config `from` (or the first one found in `cwd`) rewritten so each server that
/// `config` (default `cwd/mcp-pin.toml`, which `mcp-pin init` writes) defines runs through
/// `mcp-pin proxy`; written over the original only when `write`, and only when each wrapped
/// entry's server would start: the config loaded as the proxy will load it, with what the
/// entry hands over ([`would_start`]).
pub fn wrap(cwd: &Path, from: Option<&Path>, config: Option<&Path>, write: bool) -> Result<WrapOutcome, AppError> {
    let source = client_config(cwd, from, "pass the client config to wrap with `mcp-pin init --wrap --from PATH`")?;
    let source = std::path::absolute(&source).unwrap_or(source);
    let config = config.map(Path::to_path_buf).unwrap_or_else(|| cwd.join("mcp-pin.toml"));
    let config = std::fs::canonicalize(&config).map_err(|_| AppError::Hinted {
        message: format!("no {} for the proxy to read the servers from", config.display()),
        hint: "run `mcp-pin init` first (it writes mcp-pin.toml from the client config), then `mcp-pin lock`, then `mcp-pin init --wrap`".into(),
    })?;
    let config_text = read(&config)?;
    let loaded = Config::parse_with(&config_text, &config, None).map_err(|e| AppError::Io(e.to_string()))?;
    if loaded.format != crate::config::Format::McpPin {
        return Err(AppError::Hinted {
            message: format!("{} is a client config: the wrapped client config cannot also be where the proxy reads the servers from", config.display()),
            hint: "run `mcp-pin init` to write mcp-pin.toml, and wrap the client config with it".into(),
        });
    }
    let text = read(&source)?;
    let client = Config::parse_with(&text, &source, None).map_err(|e| AppError::Io(e.to_string()))?;
    let presents = client.config.servers.values().next().map(|s| s.client).unwrap_or_default();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let target = crate::config::wrap::Target::of(&source, presents, home.as_deref());
    // A user-level file is read by a client started from a desktop, whose PATH often lacks
    // `~/.cargo/bin`: it names this very binary.
    let program = match &target.project {
        Some(_) => "mcp-pin".to_string(),
        None => std::env::current_exe()
            .ok()
            .and_then(|p| std::fs::canonicalize(p).ok())
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "mcp-pin".into()),
    };
    let config_arg = target.config_arg(&config);
    let proxy = crate::config::wrap::Proxy { program: &program, config_arg: &config_arg };
    let wrapped =
        crate::config::wrap::wrap(&text, &source, &target, &loaded.config.servers, &client.config.servers, &proxy)?;
    for w in &wrapped.warnings {
        crate::tell!("warning: {w}");
    }
    if target.project.is_some() && !config.starts_with(target.project.as_deref().unwrap_or(Path::new("/"))) {
        crate::tell!(
            "warning: {} is outside the project folder: the wrapped entries name it by its absolute path, which only this machine has",
            config.display()
        );
    }
    let workspace = target.project.clone().unwrap_or_else(|| config.parent().unwrap_or(Path::new("/")).to_path_buf());
    for (name, env) in &wrapped.handovers {
        if let Err(e) = would_start(&config, &config_text, name, env, &workspace, &target) {
            if write {
                return Err(e);
            }
            crate::tell!("warning: {e}");
            if let Some(h) = e.hint() {
                crate::tell!("hint: {h}");
            }
        }
    }
    let lockfile = config.parent().unwrap_or(Path::new("/")).join("mcp.lock");
    let pinned: std::collections::BTreeSet<String> = crate::lockfile::LockText::read(&lockfile)
        .ok()
        .and_then(|t| {
            let scanned = crate::lockfile::ScannedLock::scan(t.as_str(), &lockfile).ok()?;
            scanned.pending(&|s| wrapped.handovers.contains_key(s)).ok().map(|p| p.into_keys().collect())
        })
        .unwrap_or_default();
    for name in wrapped.wrapped.iter().filter(|n| !pinned.contains(*n)) {
        crate::tell!(
            "warning: server `{name}` is not in {}: the proxy relays only a pinned server (`mcp-pin lock --server {name}`, then commit mcp.lock)",
            lockfile.display()
        );
    }
    if write && !wrapped.wrapped.is_empty() {
        within_project(cwd, &source)?;
        within_project(cwd, &originals_path(&source))?;
        let mut originals = read_originals(&source)?;
        for (k, v) in &wrapped.originals {
            originals.insert(k.clone(), v.clone());
        }
        write_originals(&source, &originals)?;
        crate::sink::write_file(&source, &wrapped.text)
            .map_err(|e| AppError::Io(format!("cannot write {}: {e}", source.display())))?;
    }
    Ok(WrapOutcome { source, config, servers: wrapped.wrapped.len(), text: wrapped.text, handovers: wrapped.handovers })
}

/// A value no one knows before the client runs (an `${input:...}` prompt, the user's
/// environment), for the check: long enough to be any secret.
const SAMPLE: &str = "mcp-pin-sample-value";

/// Whether server `name` would start through the proxy: `config_text` loaded as the proxy loads
/// it, for that server only, in the environment the wrapped entry gives it (the small one every
/// client passes, and `env`, each value as the client would expand it: a default as written,
/// anything else a sample), and its command found when it is a path.
fn would_start(
    config: &Path,
    config_text: &str,
    name: &str,
    env: &[(String, String)],
    workspace: &Path,
    target: &crate::config::wrap::Target,
) -> Result<(), AppError> {
    let mut given: BTreeMap<String, String> = BTreeMap::new();
    for v in crate::config::wrap::SMALL_ENV {
        if let Ok(value) = std::env::var(v) {
            given.insert(v.to_string(), value);
        }
    }
    for (k, v) in env {
        given.insert(k.clone(), crate::config::expand::sample_client_value(v, workspace, SAMPLE));
    }
    let lookup = |var: &str| given.get(var).cloned();
    let only: std::collections::BTreeSet<String> = [name.to_string()].into();
    // What a sample registers as a secret stays in this scope.
    let loaded = crate::secrets::scoped(|| Config::parse_only(config_text, config, Some(&lookup), Some(&only)));
    let entry = format!("the wrapped entry `{name}` would not start: the proxy");
    let section = format!("[servers.{name}] of {}", config.display());
    match loaded {
        Err(crate::config::ConfigError::MissingVar { var, .. }) => Err(AppError::Hinted {
            message: format!("{entry} reads `${{{var}}}` for it, and the entry does not hand `{var}` over"),
            hint: match target.env_ref(&var) {
                Some(_) => format!("write its value in {section}, or set `{var}` in the entry's `env` and wrap again"),
                None => format!(
                    "this client expands no variables: write the value of `{var}` in {section}, or give the entry `\"env\": {{\"{var}\": \"VALUE\"}}` before wrapping"
                ),
            },
        }),
        Err(crate::config::ConfigError::ShortSecret { var, .. }) => Err(AppError::Hinted {
            message: format!(
                "{entry} would be handed `{var}` = a value shorter than {} characters, and mcp-pin.toml reads it as a secret, too short to mask",
                crate::secrets::MIN_SECRET_LEN
            ),
            hint: format!(
                "if `{var}` is no secret (a region, a flag), add `not_secret = [\"{var}\"]` to {section}; otherwise use a longer value"
            ),
        }),
        Err(e) => Err(AppError::Hinted {
            message: format!("{entry} could not load its config: {e}"),
            hint: e.hint().unwrap_or_else(|| format!("fix {section}, then wrap again")),
        }),
        Ok(l) => {
            let Some(crate::config::Transport::Stdio(s)) = l.config.servers.get(name).map(|s| &s.transport) else {
                return Ok(());
            };
            let path = Path::new(&s.command);
            if path.is_absolute() && !path.exists() {
                return Err(AppError::Hinted {
                    message: format!("{entry} could not start `{}`: there is no such file", s.command_template),
                    hint: format!("fix `command` in {section}, then wrap again"),
                });
            }
            Ok(())
        }
    }
}

/// What `init --unwrap` produced.
#[derive(Debug)]
pub struct UnwrapOutcome {
    pub source: PathBuf,
    /// The client config with its entries back.
    pub text: String,
    pub restored: Vec<String>,
}

/// The client config `from` (or the first one found in `cwd`) with each entry `init --wrap
/// --write` replaced put back as it was written; written (and the kept entries' file removed)
/// only when `write`.
pub fn unwrap(cwd: &Path, from: Option<&Path>, write: bool) -> Result<UnwrapOutcome, AppError> {
    let source = client_config(cwd, from, "pass the client config to unwrap with `mcp-pin init --unwrap --from PATH`")?;
    let text = read(&source)?;
    let originals = read_originals(&source)?;
    let (new, restored, left) = crate::config::wrap::unwrap(&text, &source, &originals)?;
    for name in &left {
        crate::tell!(
            "warning: server `{name}` runs the proxy and {} does not hold its entry: left as it is",
            originals_path(&source).display()
        );
    }
    if write && !restored.is_empty() {
        within_project(cwd, &source)?;
        within_project(cwd, &originals_path(&source))?;
        crate::sink::write_file(&source, &new)
            .map_err(|e| AppError::Io(format!("cannot write {}: {e}", source.display())))?;
        let rest: BTreeMap<String, String> = originals.into_iter().filter(|(k, _)| !restored.contains(k)).collect();
        let path = originals_path(&source);
        if rest.is_empty() {
            std::fs::remove_file(&path).map_err(|e| AppError::Io(format!("cannot remove {}: {e}", path.display())))?;
        } else {
            write_originals(&source, &rest)?;
        }
    }
    Ok(UnwrapOutcome { source, text: new, restored })
}
