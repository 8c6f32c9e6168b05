//! A package runner's installed program: `npx -y @scope/server@1.2.3 ARGS` runs, once npm has
//! resolved it, the `bin` of that exact package installed under npm's `_npx` cache. A sandboxed
//! session starts that program directly with `node` (the same program npx would start), so it
//! needs neither npm nor a seeded npm cache (whose copy costs more than the server's own start).
//! Only for an exact version already installed there, a JavaScript `bin`, and npx flags that
//! change nothing about what runs; anything else is started through npx as written.

use std::path::{Path, PathBuf};

/// Most bytes read of an installed `package.json`.
const MAX_PACKAGE_JSON: u64 = 1 << 20;
/// Most `_npx` folders looked into.
const MAX_NPX_DIRS: usize = 4_096;

/// The program and arguments that `command args` (an `npx` command line) runs, when it can be
/// started without npm: `("node", [BIN, ARGS...])`; `npm_cache` is npm's cache folder.
pub fn direct(command: &str, args: &[String], npm_cache: &Path) -> Option<(String, Vec<String>)> {
    let runner = Path::new(command).file_name()?.to_str()?;
    if runner != "npx" {
        return None;
    }
    let mut rest = args.iter();
    let spec = loop {
        let a = rest.next()?;
        match a.as_str() {
            "-y" | "--yes" | "-q" | "--quiet" | "--prefer-offline" => continue,
            s if s.starts_with('-') => return None,
            s => break s,
        }
    };
    let (name, version) = split_spec(spec)?;
    let bin = installed_bin(npm_cache, name, version)?;
    let mut out = vec![bin.to_string_lossy().into_owned()];
    out.extend(rest.cloned());
    Some(("node".to_string(), out))
}

/// `@scope/name@1.2.3` or `name@1.2.3`: the name and an exact version (digits and dots, an
/// optional pre-release or build suffix), never a range or a tag.
fn split_spec(spec: &str) -> Option<(&str, &str)> {
    let at = spec.rfind('@').filter(|i| *i > 0)?;
    let (name, version) = (&spec[..at], &spec[at + 1..]);
    let core = version.split(['-', '+']).next()?;
    let exact =
        core.split('.').count() == 3 && core.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    (exact && !name.is_empty()).then_some((name, version))
}

/// The JavaScript file of the only `bin` of `name` at exactly `version` under `_npx`.
fn installed_bin(npm_cache: &Path, name: &str, version: &str) -> Option<PathBuf> {
    let mut found = None;
    for dir in std::fs::read_dir(npm_cache.join("_npx")).ok()?.flatten().take(MAX_NPX_DIRS) {
        let pkg = dir.path().join("node_modules").join(name);
        let Ok(text) = crate::files::read_regular(&pkg.join("package.json"), MAX_PACKAGE_JSON) else { continue };
        let Ok(meta) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        if meta.get("version").and_then(|v| v.as_str()) != Some(version) {
            continue;
        }
        let rel = match meta.get("bin")? {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Object(m) if m.len() == 1 => m.values().next()?.as_str()?.to_string(),
            _ => return None,
        };
        let file = pkg.join(rel);
        if !file.is_file() || !file.starts_with(&pkg) || rel_escapes(&file, &pkg) || !javascript(&file) {
            return None;
        }
        found = Some(file);
        break;
    }
    found
}

/// Whether `file` leaves `base` once resolved (a `bin` of `../../x`).
fn rel_escapes(file: &Path, base: &Path) -> bool {
    match (file.canonicalize(), base.canonicalize()) {
        (Ok(f), Ok(b)) => !f.starts_with(b),
        _ => true,
    }
}

/// Whether `file` is run by node: a `.js`/`.mjs`/`.cjs` file, or one whose first line is a node
/// shebang.
pub(super) fn javascript(file: &Path) -> bool {
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    if matches!(ext, "js" | "mjs" | "cjs") {
        return true;
    }
    let Ok(head) = crate::files::read_head(file, 256) else { return false };
    let first = String::from_utf8_lossy(&head);
    let first = first.lines().next().unwrap_or("");
    first.starts_with("#!") && first.contains("node")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache_with(name: &str, version: &str, bin: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let pkg = d.path().join("_npx/abc123/node_modules").join(name);
        std::fs::create_dir_all(pkg.join("dist")).unwrap();
        std::fs::write(
            pkg.join("package.json"),
            serde_json::json!({"name": name, "version": version, "bin": {"srv": bin}}).to_string(),
        )
        .unwrap();
        std::fs::write(pkg.join("dist/index.js"), "#!/usr/bin/env node\n").unwrap();
        d
    }

    #[test]
    fn an_exact_npx_package_runs_its_installed_bin_with_node() {
        let d = cache_with("@acme/server", "1.2.3", "dist/index.js");
        let args: Vec<String> = ["-y", "@acme/server@1.2.3", ".", "--flag"].map(String::from).to_vec();
        let (cmd, out) = direct("npx", &args, d.path()).unwrap();
        assert_eq!(cmd, "node");
        assert!(out[0].ends_with("node_modules/@acme/server/dist/index.js"), "{out:?}");
        assert_eq!(&out[1..], [".", "--flag"]);
    }

    #[test]
    fn anything_else_goes_through_npx() {
        let d = cache_with("@acme/server", "1.2.3", "dist/index.js");
        let run = |args: &[&str]| direct("npx", &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(), d.path());
        assert!(run(&["-y", "@acme/server@1.2.4"]).is_none(), "another version");
        assert!(run(&["-y", "@acme/server@^1.2.3"]).is_none(), "a range");
        assert!(run(&["-y", "@acme/server@latest"]).is_none(), "a tag");
        assert!(run(&["-y", "@acme/server"]).is_none(), "no version");
        assert!(run(&["-p", "x", "@acme/server@1.2.3"]).is_none(), "a flag that changes what runs");
        assert!(direct("node", &["x".into()], d.path()).is_none(), "not npx");
        let escape = cache_with("evil", "1.0.0", "../../../../etc/passwd");
        assert!(direct("npx", &["evil@1.0.0".to_string()], escape.path()).is_none(), "a bin outside its package");
    }
}
