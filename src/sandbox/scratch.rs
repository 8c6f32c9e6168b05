//! The scratch folder of a sandboxed session: the only place its server may write.
//!
//! **Where.** Where a project could live, never under the system temp folder (some servers take
//! a folder there for a throwaway and refuse to serve it): `$XDG_CACHE_HOME/mcp-pin/scratch/`,
//! else `~/.cache/mcp-pin/scratch/`, else beside the project folder (`.mcp-pin-scratch-XXXX` in
//! its parent); never inside the project ([`bases`]). Removed when the session ends.
//!
//! ```text
//! mcp-pin-sandbox-XXXX/
//!   project/   a copy of the project folder (the server's working folder)
//!   home/      HOME (and XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME below it)
//!   tmp/       TMPDIR, TMP, TEMP
//!   cache/     XDG_CACHE_HOME
//!   run/       XDG_RUNTIME_DIR
//!   own/       a writable copy of the server's own package, when it has one (`super::own_code`)
//! ```
//!
//! **The copy.** Every file of the project that its ignore files (`.gitignore`, `.ignore`,
//! `.git/info/exclude`) do not exclude is copied, `.git` included, in name order, up to
//! [`COPY_MAX_BYTES`] and [`COPY_MAX_FILES`]; symlinks are copied as symlinks. An ignored entry
//! that is a server's working state (a database, an index, a data folder: anything but installed
//! code and build output, [`INSTALLED`]) gets a writable copy of its own too, up to
//! [`STATE_MAX_BYTES`] and [`STATE_MAX_FILES`] in all ([`copy_state`]), so a tool that writes
//! its state writes the copy. Everything else (an ignored `node_modules`, `target/` or `.venv`,
//! state and files past the budgets) becomes a symlink to the real one: readable as before,
//! never writable (the sandbox writes only under the scratch folder, and a write through a
//! symlink is a write to its target). A server started from `dist/index.js` therefore starts; a
//! tool that writes into a linked folder fails inside. A server that stores absolute paths of
//! the project in its state finds them naming the real project, which it can read and not write.
//! Nor can its metadata be changed through the link: the sandbox makes every metadata call a
//! no-op, wherever it aims ([`super::linux::metadata_program`]).
//!
//! **Secrets stay out.** An ignored file named like a secret ([`is_secret_file`]: `.env*`,
//! `*.pem`, `*.key`) is neither copied nor linked, and is named in [`Scratch::withheld`] so the
//! sandbox can refuse reading the real one too; so are the home folder's secret stores
//! ([`HOME_SECRETS`]).
//!
//! **Paths.** Arguments, environment values and tool-call arguments that name the project folder
//! (or something in it), as a path or a `file://` URI, are rewritten to the copy ([`Scratch::remap`]):
//! a server told to serve `/home/me/project` serves the copy, and a pinned argument naming a file
//! of the project names that file in the copy.
//!
//! **Package runners** start offline from the caches the server's own session warmed, and never
//! write them (only the cache of the runner the server is started with, by its command's name, is
//! seeded): `npm`/`npx` with `npm_config_offline=true` and a scratch npm cache seeded from the
//! real one (its small index copied, packages linked read-only; logs go to scratch), `uv`/`uvx`
//! with `UV_OFFLINE=1` and a scratch uv cache mirrored from the real one (folders made, small
//! files copied, package files linked read-only), `pip` with `PIP_NO_INDEX=1` ([`Scratch::env`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// At most this many bytes of the project are copied; the rest is linked, read-only.
pub const COPY_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// At most this many files of the project are copied; the rest is linked, read-only.
pub const COPY_MAX_FILES: usize = 50_000;

/// What of the real home folder a sandboxed server may read, relative to it: the package
/// managers' caches and the toolchains servers run from. The rest of the home folder is withheld
/// ([`Scratch::withholds`]): a credential store nobody named stays out of reach, and what this
/// list lacks fails inside the sandbox rather than leaks. The project folder, mcp-pin's own
/// `PATH` folders under the home folder and the server's installation are readable too
/// ([`Scratch::open_installation`]).
pub const HOME_OPEN: &[&str] = &[
    ".npm",
    ".cache/uv",
    ".cache/pip",
    ".cache/node",
    ".cache/node-gyp",
    ".cache/pnpm",
    ".cache/yarn",
    ".cache/deno",
    ".cache/ms-playwright",
    ".cache/puppeteer",
    ".cache/pypoetry",
    ".local/bin",
    ".local/lib",
    ".local/share/uv",
    ".local/share/pnpm",
    ".local/share/pipx",
    ".local/share/fnm",
    ".local/share/mise",
    ".local/share/virtualenvs",
    ".local/pipx",
    ".cargo/bin",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    ".asdf",
    ".yarn",
    ".npm-global",
    "go/bin",
    "go/pkg/mod",
];

/// The home folder's secret stores, relative to the home folder: kept out of a sandboxed
/// server's reach (never in its own home, and unreadable where the platform can refuse reads),
/// even where they lie under something open.
pub const HOME_SECRETS: &[&str] =
    &[".ssh", ".aws", ".config/gh", ".netrc", ".docker", ".gnupg", ".kube", ".git-credentials", ".npmrc", ".pypirc"];

/// Whether an ignored file of the project is, by its name, a secret the sandbox keeps out of
/// the copy: `.env` and `.env.*` (`.env.example` included: a reviewer can commit it), `*.pem`,
/// `*.key`. Files only: a folder called `.env` is a Python virtual environment.
pub fn is_secret_file(name: &std::ffi::OsStr) -> bool {
    let Some(n) = name.to_str() else { return false };
    n == ".env" || n.starts_with(".env.") || n.ends_with(".pem") || n.ends_with(".key")
}

/// Where scratch folders may be made, in order (see the module docs): the user's cache folder,
/// then beside the project. A place inside the project is left out (the copy would copy itself).
pub fn bases(project: &Path, own: &dyn Fn(&str) -> Option<String>) -> Vec<(PathBuf, &'static str)> {
    let absolute = |v: Option<String>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let mut out = vec![];
    if let Some(c) = absolute(own("XDG_CACHE_HOME")) {
        out.push((c.join("mcp-pin/scratch"), "mcp-pin-sandbox-"));
    } else if let Some(h) = absolute(own("HOME")) {
        out.push((h.join(".cache/mcp-pin/scratch"), "mcp-pin-sandbox-"));
    }
    if let Some(parent) = project.parent() {
        out.push((parent.to_path_buf(), ".mcp-pin-scratch-"));
    }
    out.retain(|(b, _)| !b.starts_with(project));
    out
}

/// Where a scratch folder with no hidden folder in its path may be made: beside the project
/// folder (`mcp-pin-scratch-XXXX` in its parent), when neither that parent nor the project lies
/// under the system temp folder or has a hidden folder in its path.
pub fn visible_bases(project: &Path) -> Vec<(PathBuf, &'static str)> {
    let hidden = |p: &Path| p.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
    let temp = std::env::temp_dir().canonicalize().unwrap_or_else(|_| std::env::temp_dir());
    match project.parent() {
        Some(parent) if !hidden(parent) && !parent.starts_with(&temp) => {
            vec![(parent.to_path_buf(), "mcp-pin-scratch-")]
        }
        _ => vec![],
    }
}

/// What the copy of the project did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CopyStats {
    pub files: usize,
    pub bytes: u64,
    /// Entries linked to the real ones (ignored installed code, past the budget).
    pub linked: usize,
    /// Ignored working state copied writable ([`copy_state`]).
    pub state_files: usize,
    pub state_bytes: u64,
}

/// A sandboxed session's scratch folder; removed when dropped.
pub struct Scratch {
    dir: Option<tempfile::TempDir>,
    root: PathBuf,
    /// The copy's folder name under `root`: the project folder's own.
    name: String,
    /// The project folder as named, and canonical (both are rewritten).
    real: Vec<PathBuf>,
    pub copied: CopyStats,
    /// Real files kept out of the copy: the project's ignored secret files and the home
    /// folder's secret stores that exist (canonical paths).
    pub withheld: Vec<PathBuf>,
    /// The real home folder (canonical), withheld but for `open`; `None` when it is unknown,
    /// is `/`, or is the project folder or inside it.
    pub home: Option<PathBuf>,
    /// What of the home folder is readable (canonical, existing): [`HOME_OPEN`], the project
    /// folder, and what [`Scratch::open_installation`] adds.
    pub open: Vec<PathBuf>,
    /// The copy as it was kept before the tools that destroy things ([`Scratch::keep`]).
    kept: Option<super::keep::Kept>,
}

/// Whether the sandbox withholds the real path `real` (canonical: links resolved): it is one of
/// `named` or inside one, or it is inside `home` and inside nothing of `open`. The one decision
/// for Landlock's grants ([`super::linux::open_grants`]), the own-package copy and the probes.
pub fn withholds(real: &Path, named: &[PathBuf], home: Option<&Path>, open: &[PathBuf]) -> bool {
    named.iter().any(|n| real.starts_with(n))
        || home.is_some_and(|h| real.starts_with(h) && !open.iter().any(|o| real.starts_with(o)))
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratch").field("root", &self.root).field("copied", &self.copied).finish()
    }
}

impl Scratch {
    /// A new scratch folder (see the module docs for where) holding a copy of `project`.
    pub fn create(project: &Path) -> Result<Scratch, String> {
        let own = |name: &str| crate::env_vars::get(name);
        Self::create_with(project, &own)
    }

    /// [`Scratch::create`] reading `HOME` and `XDG_CACHE_HOME` through `own`.
    pub fn create_with(project: &Path, own: &dyn Fn(&str) -> Option<String>) -> Result<Scratch, String> {
        Self::create_in(project, own, false)
    }

    /// A scratch folder whose path has no hidden folder in it (beside the project folder), for a
    /// server that refused to start in one that has (some take a dot-folder for a place not to
    /// serve, as others take the temp folder): `Err` when there is no such place.
    pub fn create_visible(project: &Path) -> Result<Scratch, String> {
        let own = |name: &str| crate::env_vars::get(name);
        Self::create_in(project, &own, true)
    }

    /// Whether the copy's path has a hidden folder in it (a name starting with a dot).
    pub fn hidden(&self) -> bool {
        self.project().components().any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
    }

    fn create_in(project: &Path, own: &dyn Fn(&str) -> Option<String>, visible: bool) -> Result<Scratch, String> {
        let project = std::path::absolute(project).map_err(|e| format!("the project folder: {e}"))?;
        let canonical = project.canonicalize().map_err(|e| format!("the project folder {}: {e}", project.display()))?;
        let mut tried = vec![];
        let mut made = None;
        let places = if visible { visible_bases(&canonical) } else { bases(&canonical, own) };
        for (base, prefix) in places {
            let dir =
                std::fs::create_dir_all(&base).and_then(|()| tempfile::Builder::new().prefix(prefix).tempdir_in(&base));
            match dir {
                Ok(d) => {
                    made = Some(d);
                    break;
                }
                Err(e) => tried.push(format!("{}: {e}", base.display())),
            }
        }
        let dir = made.ok_or_else(|| format!("cannot make a scratch folder ({})", tried.join("; ")))?;
        // Canonical, so the sandbox's rules and the rewritten paths name the same folder.
        let root = dir.path().canonicalize().map_err(|e| format!("the scratch folder: {e}"))?;
        // The copy has the project folder's own name (a server that names things by their
        // folder, a vault or a workspace, names them as outside), unless that name is taken.
        let name = canonical
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| !n.is_empty() && !n.starts_with('.') && !["home", "tmp", "cache", "run"].contains(n))
            .unwrap_or("project")
            .to_string();
        for sub in [name.as_str(), "home", "tmp", "cache", "run"] {
            std::fs::create_dir_all(root.join(sub)).map_err(|e| format!("cannot make the scratch folder: {e}"))?;
        }
        let mut withheld = vec![];
        let copied = copy_project(&canonical, &root.join(&name), &mut withheld)
            .map_err(|e| format!("cannot copy the project folder {} to the sandbox: {e}", project.display()))?;
        super::samples::write(&root.join(&name))
            .map_err(|e| format!("cannot write the sample files into the sandbox's copy: {e}"))?;
        if let Some(home) = own("HOME").map(PathBuf::from).filter(|h| h.is_absolute()) {
            for rel in HOME_SECRETS {
                if let Ok(p) = home.join(rel).canonicalize() {
                    withheld.push(p);
                }
            }
        }
        // The real home folder is withheld but what servers read of it (see [`HOME_OPEN`]).
        let home = own("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute())
            .and_then(|h| h.canonicalize().ok())
            .filter(|h| h.parent().is_some());
        let mut open = vec![];
        if let Some(home) = &home {
            open.extend(HOME_OPEN.iter().filter_map(|rel| home.join(rel).canonicalize().ok()));
            // mcp-pin's own `PATH` (never the config's): its `bin` folders under the home folder.
            for dir in own("PATH").iter().flat_map(|p| std::env::split_paths(p).collect::<Vec<_>>()) {
                let bin = dir.file_name().is_some_and(|n| n == "bin" || n == "shims");
                if let Some(dir) = dir.canonicalize().ok().filter(|d| bin && d.starts_with(home) && d != home) {
                    open.push(dir);
                }
            }
            // The caches mcp-pin's own environment names (a scratch cache links into them).
            let xdg = |sub: &str| own("XDG_CACHE_HOME").map(|c| format!("{c}/{sub}"));
            let named = ["npm_config_cache", "UV_CACHE_DIR", "PIP_CACHE_DIR"].map(own);
            for dir in named.into_iter().chain([xdg("uv"), xdg("pip")]) {
                let dir = dir.map(PathBuf::from).filter(|d| d.is_absolute()).and_then(|d| d.canonicalize().ok());
                if let Some(dir) = dir.filter(|d| d.starts_with(home) && d != home) {
                    open.push(dir);
                }
            }
            // The project (its ignored entries are links to the real ones).
            if canonical.starts_with(home) {
                open.push(canonical.clone());
            }
        }
        // A home folder that is the project or lies inside it is no home to withhold.
        let home = home.filter(|h| !h.starts_with(&canonical));
        let mut real = vec![project.clone()];
        if canonical != project {
            real.push(canonical);
        }
        Ok(Scratch { dir: Some(dir), root, name, real, copied, withheld, home, open, kept: None })
    }

    /// Whether the sandbox withholds `path` ([`withholds`], with `path`'s links resolved; a
    /// path that does not exist is judged as named).
    pub fn withholds(&self, path: &Path) -> bool {
        let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        withholds(&real, &self.withheld, self.home.as_deref(), &self.open)
    }

    /// What the sandbox may not read: [`Scratch::withheld`] and the home folder (but for
    /// [`Scratch::open`]).
    pub fn unreadable(&self) -> Vec<PathBuf> {
        self.withheld.iter().cloned().chain(self.home.clone()).collect()
    }

    /// Make the installation of a server readable in the sandbox where it lies in the home
    /// folder (`installation`: what [`super::own_code::installation`] finds, its program, its
    /// package, its Python environment), but for what [`Scratch::withheld`] names.
    pub fn open_installation(&mut self, installation: Vec<PathBuf>) {
        let Some(home) = self.home.clone() else { return };
        for p in installation {
            if p.starts_with(&home) && p != home && !self.open.contains(&p) {
                self.open.push(p);
            }
        }
    }

    /// Keep the copy of the project as it is now ([`super::keep`]), in `.kept` beside it (never
    /// the copy's own name, which starts with no dot); `false` when it is too big to keep or
    /// could not be.
    pub fn keep(&mut self) -> bool {
        let dir = self.root.join(".kept");
        let _ = std::fs::remove_dir_all(&dir);
        self.kept = super::keep::Kept::take(&self.project(), dir).ok().flatten();
        self.kept.is_some()
    }

    /// Put back what [`Scratch::keep`] kept; `false` when nothing was kept or it could not be.
    pub fn put_back(&mut self) -> bool {
        let project = self.project();
        self.kept.as_mut().is_some_and(|k| k.put_back(&project).is_ok())
    }

    /// The scratch folder: the sandbox writes under it and nowhere else.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The copy of the project folder: the sandboxed server's working folder.
    pub fn project(&self) -> PathBuf {
        self.root.join(&self.name)
    }

    /// `text` with a leading project path (or `file://` URI of one) rewritten to the copy;
    /// `None` when it names nothing in the project.
    pub fn remap(&self, text: &str) -> Option<String> {
        let copy = self.project();
        let copy = copy.to_string_lossy();
        for real in &self.real {
            let real = real.to_string_lossy();
            for scheme in ["", "file://"] {
                let Some(rest) = text.strip_prefix(scheme).and_then(|t| t.strip_prefix(real.as_ref())) else {
                    continue;
                };
                if rest.is_empty() || rest.starts_with('/') {
                    return Some(format!("{scheme}{copy}{rest}"));
                }
            }
        }
        None
    }

    /// `text` with every mention of the copy written as the project folder it copies: what a
    /// sandboxed server says about its files reads as it would outside (and the same every run,
    /// whatever the scratch folder is called).
    pub fn unmap(&self, text: &str) -> String {
        let copy = self.project().to_string_lossy().into_owned();
        if !text.contains(&copy) {
            return text.to_string();
        }
        text.replace(&copy, &self.real[0].to_string_lossy())
    }

    /// Every string inside `value` rewritten with [`Scratch::unmap`].
    pub fn unmap_json(&self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(s) => *s = self.unmap(s),
            serde_json::Value::Array(a) => a.iter_mut().for_each(|v| self.unmap_json(v)),
            serde_json::Value::Object(m) => m.values_mut().for_each(|v| self.unmap_json(v)),
            _ => {}
        }
    }

    /// Every string inside `value` rewritten with [`Scratch::remap`].
    pub fn remap_json(&self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(s) => {
                if let Some(r) = self.remap(s) {
                    *s = r;
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(|v| self.remap_json(v)),
            serde_json::Value::Object(m) => m.values_mut().for_each(|v| self.remap_json(v)),
            _ => {}
        }
    }

    /// The sandboxed server's environment: `base` (what its own session gets) with project paths
    /// rewritten, its own home, temp and cache folders, and the package runners set to run
    /// offline from the real caches, read-only. `own` reads mcp-pin's environment (where the
    /// real caches are).
    pub fn env(
        &self,
        base: &[(String, String)],
        own: &dyn Fn(&str) -> Option<String>,
        command: &str,
    ) -> Vec<(String, String)> {
        // The runner the server is started with: only its cache is seeded (a copy costs time).
        let runner = Path::new(command).file_name().and_then(|n| n.to_str()).unwrap_or("");
        let (npm, uv) = (matches!(runner, "npx" | "npm"), matches!(runner, "uvx" | "uv"));
        let mut env: BTreeMap<String, String> =
            base.iter().map(|(k, v)| (k.clone(), self.remap(v).unwrap_or_else(|| v.clone()))).collect();
        let configured = |name: &str| -> Option<String> {
            base.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone()).or_else(|| own(name))
        };
        let real_home = own("HOME");
        let real_cache = own("XDG_CACHE_HOME").or_else(|| real_home.as_ref().map(|h| format!("{h}/.cache")));
        let npm_cache = configured("npm_config_cache").or_else(|| real_home.as_ref().map(|h| format!("{h}/.npm")));
        // npm writes to its cache on every lookup (it compacts the index, takes a lock in
        // `_npx`): it gets a scratch cache seeded from the real one, which it reads through
        // links and never writes.
        let npm_cache =
            npm_cache.map(|real| match npm.then(|| seed_npm_cache(Path::new(&real), &self.root.join("npm-cache"))) {
                Some(Ok(())) => self.root.join("npm-cache").to_string_lossy().into_owned(),
                _ => real,
            });
        let uv_cache = configured("UV_CACHE_DIR").or_else(|| real_cache.as_ref().map(|c| format!("{c}/uv")));
        let uv_cache =
            uv_cache.map(|real| match uv.then(|| seed_uv_cache(Path::new(&real), &self.root.join("uv-cache"))) {
                Some(Ok(())) => self.root.join("uv-cache").to_string_lossy().into_owned(),
                _ => real,
            });
        // Spellings npm also reads; one setting of each, ours.
        env.retain(|k, _| !k.eq_ignore_ascii_case("npm_config_cache") || k == "npm_config_cache");
        let path = |sub: &str| self.root.join(sub).to_string_lossy().into_owned();
        let set: [(&str, String); 14] = [
            ("HOME", path("home")),
            ("TMPDIR", path("tmp")),
            ("TMP", path("tmp")),
            ("TEMP", path("tmp")),
            ("XDG_CACHE_HOME", path("cache")),
            ("XDG_CONFIG_HOME", path("home/.config")),
            ("XDG_DATA_HOME", path("home/.local/share")),
            ("XDG_STATE_HOME", path("home/.local/state")),
            ("XDG_RUNTIME_DIR", path("run")),
            ("npm_config_offline", "true".into()),
            ("npm_config_update_notifier", "false".into()),
            ("npm_config_logs_dir", path("tmp/npm-logs")),
            ("UV_OFFLINE", "1".into()),
            ("PIP_NO_INDEX", "1".into()),
        ];
        for (k, v) in set {
            env.insert(k.to_string(), v);
        }
        // The scratch home has no git config: a tool that commits gets an identity of its own
        // (the user's configured one stays theirs, unless the config sets these).
        for (k, v) in [
            ("GIT_AUTHOR_NAME", "mcp-pin probe"),
            ("GIT_AUTHOR_EMAIL", "probe@mcp-pin.invalid"),
            ("GIT_COMMITTER_NAME", "mcp-pin probe"),
            ("GIT_COMMITTER_EMAIL", "probe@mcp-pin.invalid"),
        ] {
            env.entry(k.to_string()).or_insert_with(|| v.to_string());
        }
        for k in ["npm_config_audit", "npm_config_fund"] {
            env.insert(k.into(), "false".into());
        }
        env.insert("PYTHONDONTWRITEBYTECODE".into(), "1".into());
        if let Some(c) = npm_cache {
            env.insert("npm_config_cache".into(), c);
        }
        if let Some(c) = uv_cache {
            env.insert("UV_CACHE_DIR".into(), c);
        }
        env.into_iter().collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let Some(dir) = self.dir.take() else { return };
        let path = dir.path().to_path_buf();
        if dir.close().is_err() {
            // A server may have taken its own permissions away: give them back, then remove.
            make_removable(&path);
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

fn make_removable(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    make_removable(&e.path());
                }
            }
        }
    }
}

/// At most this many bytes of npm's cache index are copied into a sandbox's npm cache.
const NPM_INDEX_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// A scratch npm cache at `to` that reads the real one at `from` and never writes it: the cache
/// index (`_cacache/index-v5`, small: npm rewrites a bucket on each lookup) is copied, the
/// content store and everything else of `_cacache` linked, and each `_npx/HASH` folder (where
/// `npx` takes its lock) made anew with its entries linked (the installed packages).
fn seed_npm_cache(from: &Path, to: &Path) -> std::io::Result<()> {
    if !from.is_dir() {
        return Err(std::io::Error::from(std::io::ErrorKind::NotFound));
    }
    std::fs::create_dir_all(to.join("_cacache/tmp"))?;
    let cacache = from.join("_cacache");
    if let Ok(entries) = std::fs::read_dir(&cacache) {
        for e in entries.flatten() {
            let name = e.file_name();
            let target = to.join("_cacache").join(&name);
            if name == "tmp" {
                continue;
            }
            if name == "index-v5" {
                std::fs::create_dir(&target)?;
                let limits = Mirror { small: u64::MAX, bytes: NPM_INDEX_MAX_BYTES, entries: 500_000, whole: &[] };
                mirror(&e.path(), &target, limits, &mut (0, 0), &|_| false)?;
            } else {
                link(&e.path(), &target)?;
            }
        }
    }
    if let Ok(entries) = std::fs::read_dir(from.join("_npx")) {
        std::fs::create_dir_all(to.join("_npx"))?;
        for e in entries.flatten() {
            if !e.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let dir = to.join("_npx").join(e.file_name());
            std::fs::create_dir(&dir)?;
            for inner in std::fs::read_dir(e.path())?.flatten() {
                if inner.file_name() != "concurrency.lock" {
                    link(&inner.path(), &dir.join(inner.file_name()))?;
                }
            }
        }
    }
    Ok(())
}

pub(super) fn link(real: &Path, at: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::symlink(real, at);
    #[cfg(not(unix))]
    return Err(std::io::Error::other(format!("cannot link {} here", real.display())));
}

/// How much of a folder [`mirror`] copies.
#[derive(Clone, Copy)]
pub(super) struct Mirror {
    /// A file this size or smaller is copied (a tool writes to its small files: markers, locks,
    /// index buckets); a larger one is linked, read-only (package contents).
    pub small: u64,
    /// At most this many bytes copied in all, and this many entries made; the rest is linked.
    pub bytes: u64,
    pub entries: usize,
    /// Folders of these names are linked whole, read-only (a package's own `node_modules`).
    pub whole: &'static [&'static str],
}

/// Make `to` (existing) a writable mirror of the folder `from`: its folders made anew, its small
/// files copied, everything else linked to the real one, which is never written through it.
/// An error when an entry it would copy or make is one `withheld` names (asked by its real path:
/// `from` is canonical and links are never followed, so each entry's path is its real one).
pub(super) fn mirror(
    from: &Path,
    to: &Path,
    limits: Mirror,
    used: &mut (u64, usize),
    withheld: &dyn Fn(&Path) -> bool,
) -> std::io::Result<()> {
    for e in std::fs::read_dir(from)?.flatten() {
        let (path, target) = (e.path(), to.join(e.file_name()));
        let Ok(kind) = e.file_type() else { continue };
        if !kind.is_symlink() && withheld(&path) {
            return Err(std::io::Error::other(format!("{} is withheld from the sandbox", path.display())));
        }
        used.1 += 1;
        let whole = kind.is_dir() && limits.whole.iter().any(|w| e.file_name() == *w);
        if used.1 > limits.entries || whole {
            link(&path, &target)?;
        } else if kind.is_dir() {
            std::fs::create_dir(&target)?;
            mirror(&path, &target, limits, used, withheld)?;
        } else if kind.is_symlink() {
            link(&std::fs::read_link(&path)?, &target)?;
        } else if kind.is_file() {
            let len = e.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
            if len <= limits.small && used.0.saturating_add(len) <= limits.bytes {
                std::fs::copy(&path, &target)?;
                used.0 += len;
            } else {
                link(&path, &target)?;
            }
        }
    }
    Ok(())
}

/// A scratch uv cache at `to` from the real one at `from`: uv writes to its cache to start at all
/// (a lock file, temp files, markers in each bucket, interpreter records), so the whole tree is
/// mirrored ([`mirror`]: folders made, small files copied, package files linked read-only).
fn seed_uv_cache(from: &Path, to: &Path) -> std::io::Result<()> {
    if !from.is_dir() {
        return Err(std::io::Error::from(std::io::ErrorKind::NotFound));
    }
    std::fs::create_dir_all(to)?;
    let limits = Mirror { small: 64 * 1024, bytes: 128 * 1024 * 1024, entries: 200_000, whole: &[] };
    mirror(from, to, limits, &mut (0, 0), &|_| false)
}

/// Copy `from` into the existing folder `to` (see the module docs); linked entries for the rest,
/// but for the ignored secret files, which are named in `withheld` instead.
fn copy_project(from: &Path, to: &Path, withheld: &mut Vec<PathBuf>) -> std::io::Result<CopyStats> {
    let mut stats = CopyStats::default();
    let mut made: Vec<PathBuf> = vec![PathBuf::new()];
    // The walker reads every ignore file itself: each is checked first, so one that is no
    // regular file (a `.gitignore` linked to `/dev/zero`, a FIFO) is a refusal naming it, never
    // read (`files::vet_ignore_files`). The project's folders are checked as the walk enters
    // them, the project folder and those above it (the walker reads theirs too) here.
    for dir in from.ancestors() {
        crate::files::vet_ignore_files(dir).map_err(std::io::Error::other)?;
    }
    let refused = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
    let refusal = refused.clone();
    let walker = ignore::WalkBuilder::new(from)
        .hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let vetted = match e.file_type().is_some_and(|t| t.is_dir()) {
                true => crate::files::vet_ignore_files(e.path()),
                false => Ok(()),
            };
            vetted.map_err(|why| *refusal.lock().unwrap_or_else(|p| p.into_inner()) = Some(why)).is_ok()
        })
        .build();
    for entry in walker {
        let Ok(entry) = entry else { continue };
        let Ok(rel) = entry.path().strip_prefix(from) else { continue };
        if rel.as_os_str().is_empty() {
            continue;
        }
        // Only below a folder that was made (a folder past the budget is linked whole).
        if !rel.parent().is_some_and(|p| made.iter().any(|m| m == p)) {
            continue;
        }
        let Some(kind) = entry.file_type() else { continue };
        let target = to.join(rel);
        if kind.is_dir() {
            if stats.files >= COPY_MAX_FILES {
                continue;
            }
            std::fs::create_dir(&target)?;
            made.push(rel.to_path_buf());
        } else if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            let len = entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
            if stats.files < COPY_MAX_FILES && stats.bytes.saturating_add(len) <= COPY_MAX_BYTES {
                std::fs::copy(entry.path(), &target)?;
                stats.files += 1;
                stats.bytes += len;
            }
        }
    }
    if let Some(why) = refused.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(std::io::Error::other(why));
    }
    // Whatever was not copied into a folder that was made is linked to the real one.
    for rel in &made {
        let Ok(entries) = std::fs::read_dir(from.join(rel)) else { continue };
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            if !(kind.is_dir() || kind.is_file() || kind.is_symlink()) {
                continue; // sockets, FIFOs, devices: not part of a copy
            }
            let target = to.join(rel).join(e.file_name());
            if std::fs::symlink_metadata(&target).is_ok() {
                continue;
            }
            // A file named like a secret (a symlink to one too: it leads to the same bytes).
            if is_secret_file(&e.file_name()) && !e.path().is_dir() {
                withheld.push(e.path().canonicalize().unwrap_or_else(|_| e.path()));
                continue;
            }
            // Working state the server keeps beside the project (a database, an index): a
            // writable copy of its own, within the budget.
            if !is_installed(&e.path()) && copy_state(&e.path(), &target, &mut stats, withheld)? {
                continue;
            }
            #[cfg(unix)]
            std::os::unix::fs::symlink(e.path(), &target)?;
            stats.linked += 1;
        }
    }
    Ok(stats)
}

/// At most this many bytes of ignored working state are copied (writable); the rest is linked.
pub const STATE_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// At most this many files of ignored working state are copied (writable); the rest is linked.
pub const STATE_MAX_FILES: usize = 2_000;

/// Ignored folders that hold installed code, packages or build output (by name, or a Python
/// environment by its `pyvenv.cfg`): linked, never copied: a server runs from them and does not
/// keep its state in them.
const INSTALLED: &[&str] = &[
    "node_modules",
    "bower_components",
    "jspm_packages",
    "vendor",
    "target",
    "dist",
    "build",
    "out",
    "_build",
    ".venv",
    "venv",
    "env",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".gradle",
    ".m2",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".turbo",
    ".parcel-cache",
    ".cache",
    "coverage",
    "site-packages",
    ".terraform",
    "Pods",
    "DerivedData",
    ".dart_tool",
    "elm-stuff",
    "deps",
    ".stack-work",
    ".cargo",
    ".idea",
];

/// Whether an ignored entry holds installed code or build output ([`INSTALLED`]).
fn is_installed(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    INSTALLED.contains(&name) || name.ends_with(".egg-info") || path.join("pyvenv.cfg").is_file()
}

/// Copy an ignored entry of working state (a file, or a folder and everything in it) to
/// `to`, writable, when it fits what is left of [`STATE_MAX_BYTES`] and [`STATE_MAX_FILES`]:
/// `false` (nothing copied) when it does not. Files named like secrets are withheld, as at the
/// top; symlinks are copied as symlinks; sockets, FIFOs and devices are left out.
fn copy_state(from: &Path, to: &Path, stats: &mut CopyStats, withheld: &mut Vec<PathBuf>) -> std::io::Result<bool> {
    let walk = || ignore::WalkBuilder::new(from).standard_filters(false).follow_links(false).build();
    let (mut files, mut bytes) = (0usize, 0u64);
    // Measured first, and only as far as the budget: a huge folder is not walked to its end.
    for entry in walk() {
        let Ok(entry) = entry else { continue };
        if entry.file_type().is_some_and(|t| t.is_file()) && !is_secret_file(entry.file_name()) {
            files += 1;
            bytes = bytes.saturating_add(entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX));
            if stats.state_files + files > STATE_MAX_FILES || stats.state_bytes.saturating_add(bytes) > STATE_MAX_BYTES
            {
                return Ok(false);
            }
        }
    }
    for entry in walk() {
        let Ok(entry) = entry else { continue };
        let Ok(rel) = entry.path().strip_prefix(from) else { continue };
        let target = if rel.as_os_str().is_empty() { to.to_path_buf() } else { to.join(rel) };
        let Some(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_file() {
            if is_secret_file(entry.file_name()) {
                withheld.push(entry.path().canonicalize().unwrap_or_else(|_| entry.path().to_path_buf()));
                continue;
            }
            std::fs::copy(entry.path(), &target)?;
        }
    }
    stats.state_files += files;
    stats.state_bytes += bytes;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn the_copy_holds_the_project_and_links_what_is_ignored() {
        let p = tempfile::tempdir().unwrap();
        let root = p.path();
        std::fs::write(root.join(".gitignore"), "node_modules/\n*.log\n").unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/deep/a.txt"), "a").unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
        std::fs::write(root.join("node_modules/pkg/index.js"), "x").unwrap();
        std::fs::write(root.join("debug.log"), "log").unwrap();
        std::os::unix::fs::symlink("src/deep/a.txt", root.join("link")).unwrap();
        // Ignored secrets: neither copied nor linked, named as withheld; a `.env` folder (a
        // Python virtual environment) is no secret file.
        std::fs::write(root.join(".gitignore"), "node_modules/\n*.log\n.env*\n*.pem\nvenv/.env/\n").unwrap();
        std::fs::write(root.join(".env"), "KEY=1").unwrap();
        std::fs::write(root.join(".env.local"), "KEY=2").unwrap();
        std::fs::create_dir_all(root.join("src/certs")).unwrap();
        std::fs::write(root.join("src/certs/server.pem"), "pem").unwrap();
        std::fs::create_dir_all(root.join("venv/.env/bin")).unwrap();
        let s = Scratch::create(root).unwrap();
        let copy = s.project();
        assert_eq!(std::fs::read_to_string(copy.join("src/deep/a.txt")).unwrap(), "a");
        assert!(!std::fs::symlink_metadata(copy.join("src/deep/a.txt")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(copy.join(".git/HEAD")).unwrap(), "ref: refs/heads/main\n");
        // Ignored: linked to the real one, read through the link.
        let nm = std::fs::symlink_metadata(copy.join("node_modules")).unwrap();
        assert!(nm.file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(copy.join("node_modules/pkg/index.js")).unwrap(), "x");
        // Ignored working state (a log, a database beside the project): a writable copy.
        assert!(!std::fs::symlink_metadata(copy.join("debug.log")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(copy.join("debug.log")).unwrap(), "log");
        assert_eq!(std::fs::read_link(copy.join("link")).unwrap(), Path::new("src/deep/a.txt"));
        assert_eq!(s.copied.files, 3, "{:?}", s.copied);
        for secret in [".env", ".env.local", "src/certs/server.pem"] {
            assert!(std::fs::symlink_metadata(copy.join(secret)).is_err(), "{secret} reached the copy");
            assert!(s.withheld.contains(&root.canonicalize().unwrap().join(secret)), "{secret}: {:?}", s.withheld);
        }
        assert!(copy.join("venv/.env/bin").is_dir(), "a folder named .env is not a secret file");
        assert!(!s.root().starts_with(std::env::temp_dir()), "the scratch copy is under the temp folder");
        let root_dir = s.root().to_path_buf();
        drop(s);
        assert!(!root_dir.exists(), "the scratch folder is removed with it");
    }

    /// Issue 43 class 6: a server's working state in an ignored folder of the project (its
    /// database, its index) gets a writable copy of its own in the scratch folder, within a
    /// budget; installed code (`node_modules`, a Python environment by its `pyvenv.cfg`) and state
    /// past the budget stay links to the real ones; a secret inside the state is withheld. The
    /// real project is never written.
    #[test]
    #[cfg(unix)]
    fn ignored_working_state_gets_a_writable_copy_and_installed_code_stays_linked() {
        let p = tempfile::tempdir().unwrap();
        let root = p.path();
        std::fs::write(
            root.join(".gitignore"),
            ".data/
*.sqlite
node_modules/
py/
big/
",
        )
        .unwrap();
        std::fs::create_dir_all(root.join(".data/index")).unwrap();
        std::fs::write(root.join(".data/index/segments"), "seg").unwrap();
        std::fs::write(root.join(".data/service.key"), "secret").unwrap();
        std::fs::write(root.join("app.sqlite"), "db").unwrap();
        std::fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
        std::fs::create_dir_all(root.join("py/lib")).unwrap();
        std::fs::write(root.join("py/pyvenv.cfg"), "home = /usr").unwrap();
        std::fs::create_dir_all(root.join("big")).unwrap();
        for i in 0..=STATE_MAX_FILES {
            std::fs::write(root.join(format!("big/{i}")), "").unwrap();
        }
        let s = Scratch::create(root).unwrap();
        let copy = s.project();
        let link = |rel: &str| std::fs::symlink_metadata(copy.join(rel)).unwrap().file_type().is_symlink();
        for state in [".data", "app.sqlite"] {
            assert!(!link(state), "{state} is a link");
        }
        std::fs::write(copy.join(".data/index/segments"), "written").unwrap();
        std::fs::write(copy.join("app.sqlite"), "written").unwrap();
        assert_eq!(std::fs::read_to_string(root.join(".data/index/segments")).unwrap(), "seg");
        assert_eq!(std::fs::read_to_string(root.join("app.sqlite")).unwrap(), "db");
        assert!(std::fs::symlink_metadata(copy.join(".data/service.key")).is_err(), "a secret reached the copy");
        assert!(s.withheld.iter().any(|w| w.ends_with(".data/service.key")), "{:?}", s.withheld);
        for installed in ["node_modules", "py", "big"] {
            assert!(link(installed), "{installed} is not a link");
        }
        assert_eq!((s.copied.state_files, s.copied.state_bytes), (2, 5), "{:?}", s.copied);
    }

    /// Issue 44 class 3: the home folder is withheld by rule, not by list. A store nobody named
    /// (`~/.acmecloud/token`) and the ones the list missed are withheld; the caches, the
    /// toolchains, the project (its ignored secrets still withheld) and mcp-pin's own `bin`
    /// folders are not; a named store stays withheld under something open.
    #[test]
    #[cfg(unix)]
    fn the_home_folder_is_withheld_but_where_servers_read() {
        let h = tempfile::tempdir().unwrap();
        let home = h.path().canonicalize().unwrap();
        for d in [
            ".acmecloud",
            ".config/gcloud",
            ".azure",
            ".terraform.d",
            ".npm/_cacache",
            ".cache/uv",
            ".cache/huggingface",
            ".pyenv/versions",
            ".local/share/keyrings",
            ".local/bin",
            "tools/bin",
            "proj/src",
        ] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        for f in [
            ".acmecloud/token",
            ".vault-token",
            ".cargo-credentials",
            "proj/.env",
            ".terraform.d/credentials.tfrc.json",
        ] {
            std::fs::write(home.join(f), "secret").unwrap();
        }
        std::fs::write(home.join("proj/.gitignore"), ".env\n").unwrap();
        let cache = home.join(".cache");
        let (home_s, cache_s) = (home.display().to_string(), cache.display().to_string());
        let path = format!("{}:/usr/bin", home.join("tools/bin").display());
        let own = |k: &str| match k {
            "HOME" => Some(home_s.clone()),
            "XDG_CACHE_HOME" => Some(cache_s.clone()),
            "PATH" => Some(path.clone()),
            _ => None,
        };
        let s = Scratch::create_with(&home.join("proj"), &own).unwrap();
        for secret in [
            ".acmecloud/token",
            ".config/gcloud",
            ".azure",
            ".vault-token",
            ".cargo-credentials",
            ".terraform.d/credentials.tfrc.json",
            ".cache/huggingface",
            ".local/share/keyrings",
            "proj/.env",
            "",
        ] {
            assert!(s.withholds(&home.join(secret)), "~/{secret} is readable in the sandbox");
        }
        for open in [".npm/_cacache", ".cache/uv", ".pyenv/versions", ".local/bin", "tools/bin", "proj/src", "proj"] {
            assert!(!s.withholds(&home.join(open)), "~/{open} is withheld");
        }
        assert!(!s.withholds(Path::new("/usr/bin")), "the rest of the machine stays readable");
        assert!(s.unreadable().contains(&home));
        // A named store stays withheld under something open.
        assert!(withholds(&home.join(".ssh/id"), &[home.join(".ssh")], Some(&home), std::slice::from_ref(&home)));
        // No home folder: nothing of it to withhold; a home folder inside the project is none.
        let none = |k: &str| (k == "XDG_CACHE_HOME").then(|| cache_s.clone());
        assert!(!Scratch::create_with(&home.join("proj"), &none).unwrap().withholds(&home.join(".acmecloud/token")));
        assert_eq!(Scratch::create_with(&home, &own).unwrap().home, None);
    }

    #[test]
    fn the_scratch_folder_is_where_a_project_could_live() {
        let env = |home: Option<&'static str>, cache: Option<&'static str>| {
            move |k: &str| match k {
                "HOME" => home.map(String::from),
                "XDG_CACHE_HOME" => cache.map(String::from),
                _ => None,
            }
        };
        let proj = Path::new("/work/proj");
        let bases_of = |f: &dyn Fn(&str) -> Option<String>| -> Vec<PathBuf> {
            bases(proj, f).into_iter().map(|(b, _)| b).collect()
        };
        assert_eq!(
            bases_of(&env(Some("/home/me"), None)),
            [PathBuf::from("/home/me/.cache/mcp-pin/scratch"), PathBuf::from("/work")]
        );
        assert_eq!(
            bases_of(&env(Some("/home/me"), Some("/c"))),
            [PathBuf::from("/c/mcp-pin/scratch"), PathBuf::from("/work")]
        );
        assert_eq!(bases_of(&env(None, Some("relative"))), [PathBuf::from("/work")], "only absolute folders");
        // A home folder that is the project: never a scratch folder inside the project.
        let home_project = |k: &str| (k == "HOME").then(|| "/work/proj".to_string());
        assert_eq!(bases_of(&home_project), [PathBuf::from("/work")]);
    }

    #[test]
    #[cfg(unix)]
    fn a_mirrored_cache_is_writable_and_leaves_the_real_one_alone() {
        let real = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(real.path().join("bucket/pkg")).unwrap();
        std::fs::write(real.path().join("bucket/.git"), "").unwrap();
        std::fs::write(real.path().join("bucket/pkg/big.whl"), vec![7u8; 100_000]).unwrap();
        let to = tempfile::tempdir().unwrap();
        seed_uv_cache(real.path(), &to.path().join("uv")).unwrap();
        let m = to.path().join("uv");
        // Small files are copies (writable here), big ones links (read through), folders real.
        assert!(!std::fs::symlink_metadata(m.join("bucket/.git")).unwrap().file_type().is_symlink());
        std::fs::write(m.join("bucket/.git"), "written").unwrap();
        assert!(std::fs::symlink_metadata(m.join("bucket/pkg/big.whl")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(m.join("bucket/pkg/big.whl")).unwrap().len(), 100_000);
        std::fs::write(m.join("bucket/pkg/.tmp-lock"), "x").unwrap();
        assert_eq!(std::fs::read_to_string(real.path().join("bucket/.git")).unwrap(), "");
        assert!(!real.path().join("bucket/pkg/.tmp-lock").exists());
    }

    #[test]
    fn paths_into_the_project_are_rewritten_to_the_copy() {
        let p = tempfile::tempdir().unwrap();
        let s = Scratch::create(p.path()).unwrap();
        let real = p.path().canonicalize().unwrap();
        let copy = s.project();
        let r = |t: String| s.remap(&t);
        assert_eq!(r(format!("{}", real.display())), Some(copy.display().to_string()));
        assert_eq!(r(format!("{}/a/b.txt", real.display())), Some(format!("{}/a/b.txt", copy.display())));
        assert_eq!(r(format!("file://{}/x", real.display())), Some(format!("file://{}/x", copy.display())));
        assert_eq!(r(format!("{}-other/x", real.display())), None, "a sibling folder is not the project");
        assert_eq!(r("relative/path".into()), None);
        let mut v =
            serde_json::json!({"path": format!("{}/f", real.display()), "n": 1, "l": [format!("{}", real.display())]});
        s.remap_json(&mut v);
        assert_eq!(v["path"], format!("{}/f", copy.display()));
        assert_eq!(v["l"][0], copy.display().to_string());
        // And back, anywhere in a text the server sends.
        let said = format!("Error: EISDIR: {}/a -> {}/b", copy.display(), copy.display());
        let real = p.path().display();
        assert_eq!(s.unmap(&said), format!("Error: EISDIR: {real}/a -> {real}/b"));
        s.unmap_json(&mut v);
        assert_eq!(v["path"], format!("{real}/f"));
    }

    #[test]
    fn the_environment_is_the_scratch_one_with_runners_offline() {
        let p = tempfile::tempdir().unwrap();
        let s = Scratch::create(p.path()).unwrap();
        let real = p.path().canonicalize().unwrap();
        let base = vec![
            ("HOME".to_string(), "/home/me".to_string()),
            ("DATA".to_string(), format!("{}/data.json", real.display())),
            ("PATH".to_string(), "/usr/bin".to_string()),
        ];
        let own = |k: &str| match k {
            "HOME" => Some("/home/me".to_string()),
            _ => None,
        };
        let env: BTreeMap<String, String> = s.env(&base, &own, "npx").into_iter().collect();
        assert_eq!(env["HOME"], s.root().join("home").display().to_string());
        assert_eq!(env["TMPDIR"], s.root().join("tmp").display().to_string());
        assert_eq!(env["DATA"], format!("{}/data.json", s.project().display()));
        assert_eq!(env["PATH"], "/usr/bin");
        assert_eq!(env["npm_config_offline"], "true");
        assert_eq!(
            env["npm_config_cache"], "/home/me/.npm",
            "no real cache to seed from: named as is, read-only inside"
        );
        assert_eq!(env["UV_CACHE_DIR"], "/home/me/.cache/uv", "no real cache to mirror: named as is");
        assert_eq!(env["UV_OFFLINE"], "1");
    }
}
