//! A writable copy of the server's own package, for its sandboxed session.
//!
//! Many servers keep their data beside their code: `@modelcontextprotocol/server-memory` writes
//! `memory.jsonl` into the folder of its own `dist/index.js`, a Python server a file beside its
//! module. The sandbox writes only under the scratch folder, so inside it such a server's every
//! writing tool fails, and outside it the real installation must never change. So the sandboxed
//! session runs a copy of the server's own package, made under the scratch folder, in which it
//! may write as it would in its installation; the installation itself is read, never written.
//!
//! **What is copied.** Only the package the server is started from, not what it depends on:
//! - **Node**: the package (the nearest folder above the program with a `package.json`) of the
//!   JavaScript program the command runs (`node dist/index.js`, a `bin` linked from
//!   `node_modules/.bin`, the `bin` an `npx` command runs: [`super::runner`]). The copy is made
//!   in a `node_modules` folder whose other entries are links to the real one's, so the package's
//!   dependencies resolve as before; its own `node_modules` is linked whole.
//! - **Python**: the top-level module a console script imports (`from excel_mcp.__main__ import
//!   main` in `venv/bin/excel-mcp-server`) or `python -m` runs, found in the site-packages of the
//!   interpreter's environment, and put first on `PYTHONPATH`.
//!
//! Its folders are made anew and its files of up to [`SMALL`] copied, up to [`MAX_BYTES`] and
//! [`MAX_ENTRIES`] in all; the rest is linked, read-only (a write through a link is refused).
//! Only regular files and folders are read: a program or module linked to a device or a FIFO
//! (a pull request can hold such a link) is not copied, nor a program over [`MAX_BYTES`].
//! A program inside the project folder needs none (the scratch copy of the project holds it), nor
//! does a native program, one run through a shell, or a package that cannot be found: each runs
//! from its installation as before, and a write beside it fails inside the sandbox.

use std::path::{Path, PathBuf};

use super::scratch::{link, mirror, Mirror};

/// A file this size or smaller is copied; a larger one is linked.
pub const SMALL: u64 = 4 * 1024 * 1024;
/// At most this many bytes copied in all; the rest is linked.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// At most this many entries made; the rest is linked.
pub const MAX_ENTRIES: usize = 20_000;
/// Most entries of a `node_modules` folder linked beside the copy.
const MAX_SIBLINGS: usize = 20_000;
/// Most bytes read of a script to tell what it runs.
const MAX_HEAD: u64 = 8 * 1024;
/// Most folders walked up from a program to its package.
const MAX_UP: usize = 16;
/// Most bytes read of a `package.json`.
const MAX_PACKAGE_JSON: u64 = 1 << 20;

/// How the sandboxed session starts the copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnCode {
    pub command: String,
    pub args: Vec<String>,
    /// A folder to put first on `PYTHONPATH` (where a Python package's copy is).
    pub python_path: Option<PathBuf>,
}

/// Copy the package of the server `command args` starts (found on `path_env`, relative to
/// `cwd`) under `scratch`, and say how to start the copy; `None` when there is nothing to copy
/// (see the module docs), the package is inside `scratch` already, any file the copy would make
/// is one the sandbox may not read (`withheld`, asked of each by its real path, links resolved:
/// a copy would let it read it; a config from a pull request can name any program, and a
/// module can be a link to `~/.aws/credentials`), or the copy fails (the server then runs from
/// its installation, as before).
pub fn copy(
    command: &str,
    args: &[String],
    path_env: Option<&str>,
    cwd: Option<&Path>,
    scratch: &Path,
    withheld: &dyn Fn(&Path) -> bool,
) -> Option<OwnCode> {
    let scratch = scratch.canonicalize().ok()?;
    let own = scratch.join("own");
    let made = copy_from(command, args, path_env, cwd, &scratch, withheld);
    if made.is_none() {
        // Nothing half made is left where the sandbox reads.
        let _ = std::fs::remove_dir_all(&own);
    }
    made
}

fn copy_from(
    command: &str,
    args: &[String],
    path_env: Option<&str>,
    cwd: Option<&Path>,
    scratch: &Path,
    withheld: &dyn Fn(&Path) -> bool,
) -> Option<OwnCode> {
    let own = scratch.join("own");
    let refused = |root: &Path| root.starts_with(scratch) || withheld(root);
    if let Some((slot, entry)) = node_entry(command, args, path_env, cwd) {
        let root = package_root(&entry)?;
        if refused(&root) || withheld(&entry) {
            return None;
        }
        let copied = copy_node(&root, &own.join("node_modules"), withheld).ok()?;
        let program = copied.join(entry.strip_prefix(&root).ok()?);
        // The program itself is a copy whatever its size (a bundle of several MiB): Node takes a
        // linked module for the file it links to, and its folder for the module's own.
        if program.is_symlink() {
            if std::fs::metadata(&entry).ok()?.len() > MAX_BYTES {
                return None;
            }
            std::fs::remove_file(&program).ok()?;
            std::fs::copy(&entry, &program).ok()?;
        }
        let started = program.to_string_lossy().into_owned();
        let (mut command, mut args) = (command.to_string(), args.to_vec());
        match slot {
            Slot::Command => command = started,
            Slot::Arg(i) => args[i] = started,
        }
        return Some(OwnCode { command, args, python_path: None });
    }
    let module = python_module(command, args, path_env, cwd)?;
    // (Canonical: a module linked to `~/.aws/credentials` is judged as that file.)
    if refused(&module) {
        return None;
    }
    let name = module.file_name()?;
    let into = own.join("python");
    // (Canonical: a module linked to `/dev/zero` or a FIFO is that, and is never read.)
    let meta = std::fs::metadata(&module).ok()?;
    if meta.is_dir() {
        std::fs::create_dir_all(into.join(name)).ok()?;
        mirror(&module, &into.join(name), limits(), &mut (0, 0), withheld).ok()?;
    } else if meta.is_file() && meta.len() <= MAX_BYTES {
        std::fs::create_dir_all(&into).ok()?;
        std::fs::copy(&module, into.join(name)).ok()?;
    } else {
        return None;
    }
    Some(OwnCode { command: command.to_string(), args: args.to_vec(), python_path: Some(into) })
}

/// What the sandbox must read of the server `command args`'s installation, where it lies (real
/// paths): the program the command runs when it is executable (a credential file is not), the
/// Node package of the JavaScript program it runs ([`package_root`]), and the Python virtual
/// environment (a folder with a `pyvenv.cfg`) of its interpreter. Nothing named by an argument
/// alone is in it but the program `node` runs and the package around it.
pub fn installation(command: &str, args: &[String], path_env: Option<&str>, cwd: Option<&Path>) -> Vec<PathBuf> {
    let mut out = vec![];
    let program = super::resolve(command, path_env, cwd).ok();
    if let Some(real) = program.as_ref().and_then(|p| p.canonicalize().ok()).filter(|p| executable(p)) {
        out.push(real);
    }
    if let Some((_, entry)) = node_entry(command, args, path_env, cwd) {
        out.push(package_root(&entry).unwrap_or(entry));
    }
    // The interpreter: the command itself, or the one a script's first line names.
    let name = Path::new(command).file_name().and_then(|n| n.to_str()).unwrap_or("");
    let interpreter = if name.starts_with("python") {
        program
    } else {
        program.and_then(|p| crate::files::read_head(&p, MAX_HEAD).ok()).and_then(|head| {
            let text = String::from_utf8_lossy(&head).into_owned();
            let line = text.lines().next()?.strip_prefix("#!")?.to_string();
            line.split_whitespace().next().map(PathBuf::from)
        })
    };
    // `ENV/bin/python` (not resolved: a virtual environment's interpreter links elsewhere).
    if let Some(env) = interpreter.as_deref().and_then(Path::parent).and_then(Path::parent) {
        if env.join("pyvenv.cfg").is_file() {
            out.extend(env.canonicalize().ok());
        }
    }
    out
}

/// Whether `p` is a file someone may execute.
#[cfg(unix)]
fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn executable(p: &Path) -> bool {
    p.is_file()
}

fn limits() -> Mirror {
    Mirror { small: SMALL, bytes: MAX_BYTES, entries: MAX_ENTRIES, whole: &["node_modules", ".git"] }
}

/// Where the program's path is on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Command,
    Arg(usize),
}

/// The JavaScript program `command args` runs (canonical): the first argument of `node` that is
/// no option, or the command itself when it is a JavaScript file (a `bin` link).
fn node_entry(command: &str, args: &[String], path_env: Option<&str>, cwd: Option<&Path>) -> Option<(Slot, PathBuf)> {
    let name = Path::new(command).file_name()?.to_str()?;
    let at = |p: &str| -> Option<PathBuf> {
        let p = Path::new(p);
        let p = if p.is_absolute() { p.to_path_buf() } else { cwd?.join(p) };
        p.canonicalize().ok().filter(|p| p.is_file())
    };
    if matches!(name, "node" | "nodejs") {
        let i = args.iter().position(|a| !a.starts_with('-'))?;
        // `node -r x server.js`, `node --import x …`: an option's value is no program; not read.
        if args[..i]
            .iter()
            .any(|a| matches!(a.as_str(), "-r" | "--require" | "--import" | "--loader" | "-e" | "--eval"))
        {
            return None;
        }
        return Some((Slot::Arg(i), at(&args[i])?));
    }
    let program = super::resolve(command, path_env, cwd).ok()?.canonicalize().ok()?;
    super::runner::javascript(&program).then_some((Slot::Command, program))
}

/// The package folder of `entry`: the folder above it that is installed in a `node_modules`
/// (`node_modules/pkg`, `node_modules/@scope/pkg`), else the nearest one whose `package.json`
/// names a package (a `dist/package.json` that only says `"type": "module"` is none); never
/// past a `node_modules` folder.
fn package_root(entry: &Path) -> Option<PathBuf> {
    let modules = |p: Option<&Path>| p.and_then(Path::file_name).is_some_and(|n| n == "node_modules");
    let mut named = None;
    for dir in entry.ancestors().skip(1).take(MAX_UP) {
        if modules(Some(dir)) {
            break;
        }
        if !dir.join("package.json").is_file() {
            continue;
        }
        let parent = dir.parent();
        let scoped = parent.and_then(Path::file_name).is_some_and(|n| n.to_string_lossy().starts_with('@'));
        if modules(parent) || scoped && modules(parent.and_then(Path::parent)) {
            return Some(dir.to_path_buf());
        }
        if named.is_none() && names_a_package(&dir.join("package.json")) {
            named = Some(dir.to_path_buf());
        }
    }
    named
}

/// Whether a `package.json` names a package.
fn names_a_package(file: &Path) -> bool {
    crate::files::read_regular(file, MAX_PACKAGE_JSON)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|m| m.get("name").and_then(serde_json::Value::as_str).is_some_and(|n| !n.is_empty()))
}

/// Copy the package `root` into the `node_modules` folder `base` (made), beside links to every
/// other entry of the `node_modules` it is in (its hoisted dependencies); the copy's folder.
fn copy_node(root: &Path, base: &Path, withheld: &dyn Fn(&Path) -> bool) -> std::io::Result<PathBuf> {
    let name = root.file_name().ok_or_else(|| std::io::Error::other("a package with no name"))?;
    let parent = root.parent().unwrap_or(root);
    let scope = parent.file_name().filter(|s| s.to_string_lossy().starts_with('@'));
    let installed = |p: &Path| p.file_name().is_some_and(|n| n == "node_modules");
    std::fs::create_dir_all(base)?;
    let copy = match scope {
        Some(scope) if parent.parent().is_some_and(installed) => {
            let modules = parent.parent().unwrap_or(parent);
            link_siblings(modules, base, scope)?;
            std::fs::create_dir_all(base.join(scope))?;
            link_siblings(parent, &base.join(scope), name)?;
            base.join(scope).join(name)
        }
        _ if installed(parent) => {
            link_siblings(parent, base, name)?;
            base.join(name)
        }
        _ => base.join(name),
    };
    // Node looks for a dependency in every `node_modules` above the package, nearest first: those
    // above the one it is in are linked too, where the nearer ones have no entry of that name.
    let above = if installed(parent) || scope.is_some() { root.ancestors().skip(2) } else { root.ancestors().skip(1) };
    let mut linked = 0;
    for dir in above.take(MAX_UP) {
        let modules = dir.join("node_modules");
        let linked_already = modules == parent || Some(modules.as_path()) == parent.parent();
        if dir.file_name().is_some_and(|n| n == "node_modules") || !modules.is_dir() || linked_already {
            continue;
        }
        link_missing(&modules, base, &mut linked)?;
    }
    std::fs::create_dir(&copy)?;
    mirror(root, &copy, limits(), &mut (0, 0), withheld)?;
    Ok(copy)
}

/// Link into `to` each entry of `from` it has none of (inside a scope folder `to` has, each of
/// the scope's entries), up to [`MAX_SIBLINGS`] links in all.
fn link_missing(from: &Path, to: &Path, linked: &mut usize) -> std::io::Result<()> {
    for e in std::fs::read_dir(from)?.flatten() {
        if *linked >= MAX_SIBLINGS {
            break;
        }
        let at = to.join(e.file_name());
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir()) && e.file_name().to_string_lossy().starts_with('@')
        {
            link_missing(&e.path(), &at, linked)?;
        } else if std::fs::symlink_metadata(&at).is_err() {
            link(&e.path(), &at)?;
            *linked += 1;
        }
    }
    Ok(())
}

/// Link every entry of `from` but `except` into `to`.
fn link_siblings(from: &Path, to: &Path, except: &std::ffi::OsStr) -> std::io::Result<()> {
    for e in std::fs::read_dir(from)?.flatten().take(MAX_SIBLINGS) {
        if e.file_name() != except {
            link(&e.path(), &to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// The top-level module (a folder or a `.py` file, canonical) that `command args` runs from a
/// Python environment: `python -m pkg.sub`, or a console script that imports it.
fn python_module(command: &str, args: &[String], path_env: Option<&str>, cwd: Option<&Path>) -> Option<PathBuf> {
    let name = Path::new(command).file_name()?.to_str()?;
    let (interpreter, module) = if name.starts_with("python") {
        let i = args.iter().position(|a| a == "-m")?;
        (super::resolve(command, path_env, cwd).ok()?, args.get(i + 1)?.clone())
    } else {
        let program = super::resolve(command, path_env, cwd).ok()?;
        let text = String::from_utf8_lossy(&crate::files::read_head(&program, MAX_HEAD).ok()?).into_owned();
        let line = text.lines().next()?.strip_prefix("#!")?;
        let interpreter = PathBuf::from(line.split_whitespace().next()?);
        if !interpreter.file_name()?.to_str()?.starts_with("python") {
            return None;
        }
        let module = text.lines().find_map(|l| {
            let m = l.trim().strip_prefix("from ")?.split_whitespace().next()?;
            (m != "__future__").then(|| m.to_string())
        })?;
        (interpreter, module)
    };
    let top =
        module.split('.').next().filter(|t| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_'))?;
    // `ENV/bin/python`: ENV/lib/python3.X/site-packages (not resolved: a venv's interpreter is a
    // link to the system's, whose own site-packages is not the environment's).
    let prefix = interpreter.parent()?.parent()?;
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(prefix.join(lib)) else { continue };
        for e in entries.flatten().filter(|e| e.file_name().to_string_lossy().starts_with("python")) {
            let site = e.path().join("site-packages");
            for found in [site.join(top), site.join(format!("{top}.py"))] {
                if found.exists() {
                    return found.canonicalize().ok();
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `node_modules/@scope/server/dist/index.js` beside a hoisted dependency.
    fn installed(dir: &Path) -> PathBuf {
        let pkg = dir.join("node_modules/@scope/server");
        std::fs::create_dir_all(pkg.join("dist")).unwrap();
        std::fs::create_dir_all(pkg.join("node_modules/nested")).unwrap();
        std::fs::write(pkg.join("package.json"), "{}").unwrap();
        std::fs::File::create(pkg.join("dist/big.js")).unwrap().set_len(SMALL + 1).unwrap();
        // A dual package's `dist/package.json` names no package: the package is the folder above.
        std::fs::write(pkg.join("dist/package.json"), r#"{"type": "module"}"#).unwrap();
        std::fs::write(pkg.join("dist/index.js"), "#!/usr/bin/env node\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(pkg.join("dist/index.js"), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::create_dir_all(dir.join("node_modules/@scope/other")).unwrap();
        std::fs::create_dir_all(dir.join("node_modules/dep")).unwrap();
        pkg.join("dist/index.js")
    }

    #[test]
    fn a_node_package_is_copied_beside_links_to_its_dependencies() {
        let real = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let entry = installed(real.path());
        let own = copy(
            "node",
            &["--enable-source-maps".into(), entry.to_string_lossy().into()],
            None,
            None,
            scratch.path(),
            &|_| false,
        )
        .expect("copied");
        let base = scratch.path().canonicalize().unwrap().join("own/node_modules");
        assert_eq!(own.command, "node");
        assert_eq!(own.args[1], base.join("@scope/server/dist/index.js").to_string_lossy());
        assert!(!base.join("@scope/server/dist/index.js").is_symlink(), "the program is a copy");
        assert!(base.join("@scope/server/dist/big.js").is_symlink(), "a file past the size copied is linked");
        assert!(base.join("@scope/server/node_modules").is_symlink(), "its own dependencies are linked whole");
        assert!(base.join("dep").is_symlink() && base.join("@scope/other").is_symlink(), "hoisted ones are linked");
        // A write beside the copied program lands in the copy; the installation is unchanged.
        std::fs::write(base.join("@scope/server/dist/memory.jsonl"), "x").unwrap();
        assert!(!entry.with_file_name("memory.jsonl").exists());
        // The command itself a JavaScript file (a `bin`): the command is the copy's.
        let scratch2 = tempfile::tempdir().unwrap();
        let own = copy(&entry.to_string_lossy(), &[], None, None, scratch2.path(), &|_| false).expect("copied");
        assert!(own.command.starts_with(&*scratch2.path().canonicalize().unwrap().to_string_lossy()));
        // A program past the size copied (a bundle) is a copy all the same: Node would take a
        // link for the installed file, and write beside that.
        let scratch3 = tempfile::tempdir().unwrap();
        let big = entry.with_file_name("big.js").to_string_lossy().into_owned();
        let own = copy("node", &[big], None, None, scratch3.path(), &|_| false).expect("copied");
        assert!(!Path::new(&own.args[0]).is_symlink() && Path::new(&own.args[0]).is_file(), "{own:?}");
    }

    #[test]
    fn a_python_console_scripts_module_is_copied_and_put_first_on_the_path() {
        let env = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let site = env.path().join("lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("besideme")).unwrap();
        std::fs::write(site.join("besideme/__init__.py"), "").unwrap();
        std::fs::create_dir_all(env.path().join("bin")).unwrap();
        let script = env.path().join("bin/besideme-server");
        let python = env.path().join("bin/python");
        std::fs::write(&script, format!("#!{}\nimport sys\nfrom besideme.__main__ import main\n", python.display()))
            .unwrap();
        std::fs::write(&python, "").unwrap();
        #[cfg(unix)]
        for f in [&script, &python] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let own = copy(&script.to_string_lossy(), &[], None, None, scratch.path(), &|_| false).expect("copied");
        let into = scratch.path().canonicalize().unwrap().join("own/python");
        assert_eq!(own.python_path.as_deref(), Some(into.as_path()));
        assert!(into.join("besideme/__init__.py").is_file());
        assert_eq!(own.command, script.to_string_lossy(), "started as before");
        // A one-file module that is no regular file (a link to a device, as a pull request may
        // hold) is never read.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/dev/zero", site.join("zeroes.py")).unwrap();
            let zero = env.path().join("bin/zero-server");
            std::fs::write(&zero, format!("#!{}\nfrom zeroes import main\n", python.display())).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&zero, std::fs::Permissions::from_mode(0o755)).unwrap();
            let scratch4 = tempfile::tempdir().unwrap();
            assert!(copy(&zero.to_string_lossy(), &[], None, None, scratch4.path(), &|_| false).is_none());
        }
        // `python -m besideme`.
        let scratch2 = tempfile::tempdir().unwrap();
        let own =
            copy(&python.to_string_lossy(), &["-m".into(), "besideme".into()], None, None, scratch2.path(), &|_| false);
        assert!(own.is_some_and(|o| o.python_path.is_some()));
    }

    #[test]
    fn nothing_is_copied_for_a_native_program_or_a_program_in_the_scratch_folder() {
        let scratch = tempfile::tempdir().unwrap();
        assert!(copy("sh", &["-c".into(), "true".into()], Some("/usr/bin:/bin"), None, scratch.path(), &|_| false)
            .is_none());
        let entry = installed(scratch.path());
        assert!(copy("node", &[entry.to_string_lossy().into()], None, None, scratch.path(), &|_| false).is_none());
    }

    /// A package installed inside another's `node_modules` finds the dependencies of the
    /// `node_modules` folders above it too, the nearer ones first.
    #[test]
    fn a_nested_package_links_the_node_modules_above_it() {
        let real = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let top = real.path().join("node_modules");
        let pkg = top.join("host/node_modules/server");
        std::fs::create_dir_all(pkg.join("dist")).unwrap();
        std::fs::write(pkg.join("package.json"), r#"{"name": "server"}"#).unwrap();
        std::fs::write(pkg.join("dist/index.js"), "").unwrap();
        std::fs::create_dir_all(top.join("host/node_modules/near")).unwrap();
        std::fs::create_dir_all(top.join("near")).unwrap();
        std::fs::create_dir_all(top.join("far")).unwrap();
        std::fs::create_dir_all(top.join("@types/node")).unwrap();
        let args = [pkg.join("dist/index.js").to_string_lossy().into_owned()];
        copy("node", &args, None, None, scratch.path(), &|_| false).expect("copied");
        let base = scratch.path().canonicalize().unwrap().join("own/node_modules");
        let target = |n: &str| std::fs::read_link(base.join(n)).unwrap();
        assert_eq!(target("near"), top.join("host/node_modules/near").canonicalize().unwrap(), "the nearer first");
        assert_eq!(target("far"), top.join("far").canonicalize().unwrap());
        assert!(base.join("@types").is_symlink());
        assert!(base.join("host").is_symlink(), "a package above is a dependency too");
    }

    /// A program outside any `node_modules` (a checkout): its package is the nearest folder whose
    /// `package.json` names one.
    #[test]
    fn a_checkouts_package_is_the_nearest_that_names_one() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("srv/dist")).unwrap();
        std::fs::write(d.path().join("srv/package.json"), r#"{"name": "srv"}"#).unwrap();
        std::fs::write(d.path().join("srv/dist/package.json"), r#"{"type": "module"}"#).unwrap();
        std::fs::write(d.path().join("srv/dist/index.js"), "").unwrap();
        assert_eq!(package_root(&d.path().join("srv/dist/index.js")), Some(d.path().join("srv")));
        let entry = installed(d.path());
        assert_eq!(package_root(&entry), Some(d.path().join("node_modules/@scope/server")));
    }

    /// Issue 44 class 4: a project-local virtual environment holds a module that is a link to a
    /// credential store in the home folder, and the config runs `python -m` on it. Every file the
    /// copy would make is judged by its real path with the sandbox's own decision
    /// (`scratch::withholds`: the home folder is withheld but for what is open), so the module is
    /// not copied (nor a folder module holding a withheld folder). With the check in `copy_from`
    /// taken out (`refused(&module)`), the credentials are copied into the scratch folder, where
    /// the sandbox reads, and this fails (tried by hand).
    #[test]
    #[cfg(unix)]
    fn a_module_linked_to_a_withheld_file_is_not_copied() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        let home = home.path().canonicalize().unwrap();
        std::fs::create_dir_all(home.join(".aws")).unwrap();
        std::fs::write(home.join(".aws/credentials"), "[default]\naws_secret_access_key=x\n").unwrap();
        std::fs::create_dir_all(home.join(".acmecloud")).unwrap();
        std::fs::write(home.join(".acmecloud/token"), "acme").unwrap();
        std::fs::create_dir_all(home.join(".npm")).unwrap();
        let open = [home.join(".npm")];
        let withheld = |p: &Path| {
            let real = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            crate::sandbox::scratch::withholds(&real, &[], Some(&home), &open)
        };
        let project = tempfile::tempdir().unwrap();
        let venv = project.path().join(".venv");
        let site = venv.join("lib/python3.12/site-packages");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::write(venv.join("bin/python"), "").unwrap();
        std::fs::set_permissions(venv.join("bin/python"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink(home.join(".aws/credentials"), site.join("creds.py")).unwrap();
        // A folder module holding a link is fine (a link is judged where it leads, inside), but
        // one that is a link to a store nobody named is the store.
        std::os::unix::fs::symlink(home.join(".acmecloud"), site.join("acme")).unwrap();
        std::fs::create_dir_all(site.join("fine")).unwrap();
        std::fs::write(site.join("fine/__init__.py"), "").unwrap();
        let python = venv.join("bin/python").to_string_lossy().into_owned();
        for (module, copied) in [("creds", false), ("acme", false), ("fine", true)] {
            let scratch = tempfile::tempdir().unwrap();
            let own = copy(&python, &["-m".into(), module.into()], None, None, scratch.path(), &withheld);
            assert_eq!(own.is_some(), copied, "{module}: {own:?}");
            let into = scratch.path().join("own/python");
            assert!(!into.join("creds.py").exists() && !into.join("acme").exists(), "{module}");
        }
        // Nothing withheld: the same module is copied (the check is what refuses it).
        let scratch = tempfile::tempdir().unwrap();
        assert!(copy(&python, &["-m".into(), "creds".into()], None, None, scratch.path(), &|_| false).is_some());
    }

    /// A package that holds a file the sandbox may not read (a secret store, when a config names
    /// a program beside one) is never copied where the sandbox could read it.
    #[test]
    fn a_package_holding_a_withheld_file_is_not_copied() {
        let real = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let entry = installed(real.path());
        let secret = entry.parent().unwrap().parent().unwrap().join("id_rsa");
        std::fs::write(&secret, "key").unwrap();
        let args = [entry.to_string_lossy().into_owned()];
        let secret = secret.canonicalize().unwrap();
        assert!(copy("node", &args, None, None, scratch.path(), &|p| p.starts_with(&secret)).is_none());
        assert!(!scratch.path().join("own").exists(), "nothing half made is left");
        let elsewhere = real.path().canonicalize().unwrap().join("other/id_rsa");
        assert!(copy("node", &args, None, None, scratch.path(), &|p| p.starts_with(&elsewhere)).is_some());
    }
}
