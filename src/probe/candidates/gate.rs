//! The one gate (RULES.md, "What a probe may send and pin"): every argument set a probe sends,
//! whatever produced it (the schema, a description, a project file, the server's words, another
//! tool's answer, a lock), passes [`admit`] just before it is sent, and what is pinned is what
//! passed. In order:
//! 1. **the fixture**: a set the config wrote is the user's word and is sent as written;
//! 2. **the secret rule**: no configured secret, no line (or value of a `NAME=value` line) of a
//!    file the sandbox withholds ([`withheld_files`]: the project's `.env*`, `*.pem`, `*.key`,
//!    the home folder's credential stores), no path naming such a file, and nothing that looks
//!    like a credential ([`looks_like_credential`]);
//! 3. **the path rule**: an absolute path (or `file:` URI) inside the project, or inside the
//!    folder the session works in (a sandbox's copy), becomes relative to it, so the lock holds
//!    no path of the machine and `check` resolves it where it runs; any other absolute path of
//!    the machine is refused unless the config itself names it; the server's own program and
//!    installation are refused wherever they are ([`super::context::own_programs`]);
//! 4. **the machine guard** ([`super::guard`]): no process 0, 1 or mcp-pin's own, no root or
//!    home folder, no device;
//! 5. **the schema**: the set, as sent, validates against the tool's `inputSchema`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{context, ArgSet, Known, Source};
use crate::json::pointer_token;
use crate::probe::validate::{self, Formats};

/// Most bytes read from a withheld file for the values it holds.
const MAX_READ: u64 = 64 * 1024;
/// Most withheld files read.
const MAX_FILES: usize = 64;
/// Shortest withheld value looked for (a `DEBUG=1` line is no secret to keep out).
const MIN_VALUE: usize = 8;
/// The shortest value of a `NAME=value` line whose name says it is a secret (`API_KEY=sk-abc`)
/// that is taken for one: the name already says what it is.
const MIN_ASSIGNED: usize = 6;
/// How deep the project is searched for withheld files.
const MAX_DEPTH: usize = 3;

/// The files a sandbox withholds from a server working in `project`, with `home`: files of the
/// project named like a secret ([`crate::sandbox::scratch::is_secret_file`], the sandbox's own
/// decision), committed or not, and the home folder's secret stores
/// ([`crate::sandbox::scratch::HOME_SECRETS`]) with the files directly in them. Canonical.
pub fn withheld_files(project: Option<&Path>, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = project {
        walk(p, 0, &mut out);
    }
    if let Some(h) = home {
        for rel in crate::sandbox::scratch::HOME_SECRETS {
            let Ok(p) = h.join(rel).canonicalize() else { continue };
            if p.is_dir() {
                for e in std::fs::read_dir(&p).into_iter().flatten().flatten().take(MAX_FILES) {
                    if e.file_type().is_ok_and(|t| t.is_file()) {
                        out.push(e.path());
                    }
                }
            }
            out.push(p);
        }
    }
    out
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut names: Vec<_> = rd.flatten().take(2_000).collect();
    names.sort_by_key(|e| e.file_name());
    for e in names {
        let Ok(t) = e.file_type() else { continue };
        let name = e.file_name();
        if t.is_dir() && depth + 1 < MAX_DEPTH {
            let n = name.to_string_lossy();
            if !matches!(n.as_ref(), "node_modules" | ".git" | "target" | ".venv" | "venv" | "__pycache__") {
                walk(&e.path(), depth + 1, out);
            }
        } else if !t.is_dir() && crate::sandbox::scratch::is_secret_file(&name) {
            out.push(e.path().canonicalize().unwrap_or_else(|_| e.path()));
        }
    }
}

/// The values the withheld `files` hold: each line of three words' worth (trimmed, comments
/// left out), and the value of each `NAME=value` / `NAME: value` line, unquoted; at least
/// [`MIN_VALUE`] characters each. Read once per server, kept in memory only.
pub fn withheld_values(files: &[PathBuf]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in files.iter().filter(|f| f.is_file()).take(MAX_FILES) {
        let Ok(bytes) = crate::files::read_head(f, MAX_READ) else { continue };
        for line in String::from_utf8_lossy(&bytes).lines() {
            let line = line.trim();
            if line.starts_with('#') {
                continue;
            }
            let mut push = |v: &str| {
                let v = v.trim().trim_matches(|c| c == '"' || c == '\'').trim();
                if v.chars().count() >= MIN_VALUE && !out.iter().any(|o| o == v) {
                    out.push(v.to_string());
                }
            };
            push(line);
            if let Some((_, v)) = line.split_once('=').or_else(|| line.split_once(": ")) {
                push(v);
            }
        }
    }
    out
}

/// Whether `s` looks like a credential whatever file it came from: a private key block, a token
/// with a known issuer's prefix (`sk-`, `ghp_`, `github_pat_`, `xoxb-`, `AKIA`, `AIza`, `glpat-`,
/// `npm_`, `hf_`…), a JSON web token, a URL carrying a password, or a `NAME=value` whose name
/// says key, secret, token or password.
pub fn looks_like_credential(s: &str) -> bool {
    if s.contains("PRIVATE KEY") && s.contains("-----") {
        return true;
    }
    let tokens = s.split(|c: char| c.is_whitespace() || "\"'`,;()[]{}<>=:".contains(c));
    const PREFIXES: &[&str] = &[
        "sk-",
        "sk_live_",
        "sk_test_",
        "rk_live_",
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "xoxa-",
        "xoxs-",
        "xapp-",
        "AKIA",
        "ASIA",
        "AIza",
        "npm_",
        "pypi-",
        "hf_",
        "SG.",
        "shpat_",
        "dop_v1_",
        "sq0atp-",
        "ya29.",
    ];
    for t in tokens {
        for p in PREFIXES {
            if let Some(rest) = t.strip_prefix(p) {
                let body = rest.chars().filter(|c| c.is_ascii_alphanumeric()).count();
                if body >= 16 && rest.chars().any(|c| c.is_ascii_digit()) {
                    return true;
                }
            }
        }
        // A JSON web token: three base64url parts, the first a JSON object.
        if t.starts_with("eyJ") && t.len() >= 32 && t.matches('.').count() == 2 {
            return true;
        }
    }
    // `https://user:password@host`
    if let Some((_, rest)) = s.split_once("://") {
        let auth = rest.split(['/', '?', '#']).next().unwrap_or("");
        if let Some((userinfo, _)) = auth.rsplit_once('@') {
            if userinfo.split_once(':').is_some_and(|(_, pw)| !pw.is_empty()) {
                return true;
            }
        }
    }
    // `API_KEY=…`, `password: …`
    for line in s.lines() {
        let Some((name, value)) = line.split_once('=').or_else(|| line.split_once(':')) else { continue };
        let name = name.trim();
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        let words = super::hints::words(name);
        let named = words.iter().any(|w| {
            ["key", "apikey", "secret", "token", "password", "passwd", "pwd", "credential", "credentials"]
                .contains(&w.as_str())
        });
        if named && name.len() <= 64 && value.len() >= MIN_ASSIGNED && !value.contains(char::is_whitespace) {
            return true;
        }
    }
    false
}

/// Why `set`, for the tool `def`, may not be sent, or the set to send and pin: with every
/// absolute path inside the project (or inside `dir`, the folder the session works in) made
/// relative to it (see the module docs for the rules, in order).
pub fn admit(def: &Value, known: &Known, set: &ArgSet, dir: Option<&Path>) -> Result<ArgSet, String> {
    // 1. The fixture: the user's word.
    if !set.from.is_empty() && set.from.values().all(|s| *s == Source::Fixture) {
        return Ok(set.clone());
    }
    let mut set = set.clone();
    // 3. Paths (first: a path made relative is checked in the form it is sent).
    let base = known.paths.base.as_deref();
    let mut leaves = Vec::new();
    string_leaves(String::new(), &Value::Object(set.args.clone()), &mut leaves);
    for (at, s) in leaves {
        let marked = set.relative.contains(&at);
        let full = if marked {
            base.or(dir).map(|b| PathBuf::from(super::absolute(b, &s)))
        } else {
            absolute_path(&s, known.home.as_deref())
        };
        let Some(full) = full else {
            if !marked && climbs_out(&s) {
                return Err("a path that climbs out of the project".into());
            }
            continue;
        };
        if known.paths.is_own(&full) {
            return Err("the server's own program or installation".into());
        }
        if is_withheld(known, &full) {
            return Err("a file the sandbox withholds (a secret)".into());
        }
        if marked {
            continue;
        }
        let inside = [base, dir].into_iter().flatten().find_map(|b| context::relative_to(b, &full));
        match inside {
            Some(rel) => {
                if let Some(Value::String(v)) = pointer_mut(&mut set, &at) {
                    *v = rel;
                }
                set.relative.push(at);
                // Given absolute (the server's own words, a listing): the form the server uses is
                // the form it is sent in, resolved where the call is made.
                set.absolute = true;
            }
            None if named(known, &full) => {}
            None if of_machine(&full) => return Err("a path of the machine outside the project".into()),
            None => {}
        }
    }
    // 2. Secrets.
    let sent = Value::Object(set.resolve(dir.or(base)));
    if known.holds_secret(&Value::Object(set.args.clone())) {
        return Err("a secret".into());
    }
    // 4. The machine.
    let root = def.get("inputSchema").cloned().unwrap_or(Value::Null);
    if let Some(why) = super::aimed_at_machine(&root, &sent, known) {
        return Err(why.into());
    }
    // 5. The schema.
    if let Ok(whole) = validate::compile_as(&root, validate::draft_of(&root), Formats::Assert) {
        if !whole.is_valid(&sent) {
            return Err("arguments the inputSchema does not accept".into());
        }
    }
    Ok(set)
}

/// Every string leaf of `v` with its JSON pointer.
fn string_leaves(at: String, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) => out.push((at, s.clone())),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| string_leaves(format!("{at}/{i}"), x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| string_leaves(format!("{at}/{}", pointer_token(k)), x, out)),
        _ => {}
    }
}

fn pointer_mut<'a>(set: &'a mut ArgSet, at: &str) -> Option<&'a mut Value> {
    let (first, rest) =
        at.strip_prefix('/')?.split_once('/').map_or((at[1..].to_string(), ""), |(a, b)| (a.to_string(), b));
    let key = first.replace("~1", "/").replace("~0", "~");
    let v = set.args.get_mut(&key)?;
    if rest.is_empty() {
        Some(v)
    } else {
        v.pointer_mut(&format!("/{rest}"))
    }
}

/// The absolute path a string names: `/…`, `file:///…`, or `~/…` (the home folder's).
fn absolute_path(s: &str, home: Option<&Path>) -> Option<PathBuf> {
    let t = s.trim();
    if t.contains('\n') {
        return None;
    }
    if let Ok(u) = reqwest::Url::parse(t) {
        return (u.scheme() == "file").then(|| u.to_file_path().ok()).flatten();
    }
    if let Some(rest) = t.strip_prefix("~/") {
        return home.map(|h| h.join(rest));
    }
    t.starts_with('/').then(|| context::normalize(Path::new(t)))
}

/// `../x`, `a/../../x`: a relative path that leaves the folder it is resolved in.
fn climbs_out(s: &str) -> bool {
    let mut depth: i32 = 0;
    for part in s.trim().split('/') {
        match part {
            ".." => depth -= 1,
            "" | "." => {}
            _ => depth += 1,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// Whether the config names `p` (or a folder it is in) outside the project.
fn named(known: &Known, p: &Path) -> bool {
    let real = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    known.paths.named.iter().any(|n| real.starts_with(n) || p.starts_with(n))
}

/// Whether `p` is a path of this machine: its first folder exists here (`/home/…`, `/tmp/…`,
/// `/usr/…`), so `/api/v1` or `/users/42` (a route, an id) is none.
fn of_machine(p: &Path) -> bool {
    let mut c = p.components();
    c.next();
    match c.next() {
        Some(first) => Path::new("/").join(first).exists(),
        None => true,
    }
}

/// Whether `p` is (or is in) a file the sandbox withholds.
pub fn is_withheld(known: &Known, p: &Path) -> bool {
    let real = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    known.withheld_files.iter().any(|w| real.starts_with(w) || p.starts_with(w))
        || p.file_name().is_some_and(crate::sandbox::scratch::is_secret_file) && !p.is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_recognised_and_ids_are_not() {
        for s in [
            "sk-proj-abcdefghijklmnop1234567890",
            "OPENAI_API_KEY=sk-abc",
            "token: ghp_ABCDEFGHIJKLMNOPQRSTUVWX12345678",
            "AKIAIOSFODNN7EXAMPLE1",
            "postgres://me:hunter22@db.example.com/x",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "DB_PASSWORD=correcthorse",
        ] {
            assert!(looks_like_credential(s), "{s}");
        }
        for s in [
            "3f2b1c9d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c",
            "00000000-0000-0000-0000-000000000000",
            "# guide",
            "https://example.com/x",
            "task-1a2b",
            "sk-1",
            "key=value",
            "monkey: banana",
            "/home/u/project/repo",
        ] {
            assert!(!looks_like_credential(s), "{s}");
        }
    }

    #[test]
    fn a_relative_path_that_climbs_out_is_seen() {
        assert!(climbs_out("../x") && climbs_out("a/../../x"));
        assert!(!climbs_out("a/../x") && !climbs_out("docs/guide.md") && !climbs_out("x..y"));
    }
}
