//! Secrets: every value mcp-pin read from the environment (or a VS Code secret input) for a
//! config, wherever it was expanded (a header, an env value, a URL's path or query, an argument).
//!
//! Two jobs, each done once for the whole process:
//! - **Which variables a config may read** ([`EnvPolicy`]). A config from a pull request is code:
//!   under CI (`CI` set), a `${VAR}` resolves only when the invocation names it
//!   (`--allow-env VAR`, the Action's `allow-env` input); at a terminal every variable resolves.
//!   A few variables that name the machine's own places and are no secret ([`NOT_SECRET`]) are
//!   always readable and never masked.
//! - **Masking** ([`mask`]). Every value resolved is registered; every byte mcp-pin prints or
//!   writes (stdout, stderr, report files, the step summary, the lockfile, `init`'s output) goes
//!   through [`mask`] at the sink ([`crate::sink`]), whichever server's config it came from. A
//!   value under [`MIN_SECRET_LEN`] characters cannot be masked without masking ordinary text, so
//!   the config is refused instead.

use std::collections::BTreeSet;
use std::sync::{OnceLock, RwLock};

/// Shorter non-empty values are refused (masking `80` would mask every `80` in a report).
pub const MIN_SECRET_LEN: usize = 4;

/// What replaces a secret in everything mcp-pin prints or writes.
pub const MASK: &str = "***";

/// Variables that name the machine's own places or the user, never a credential: readable
/// under CI without `--allow-env`, and not masked (masking `HOME` would garble every path).
pub const NOT_SECRET: &[&str] = &[
    "HOME",
    "USERPROFILE",
    "USER",
    "USERNAME",
    "LOGNAME",
    "PWD",
    "TMPDIR",
    "TEMP",
    "TMP",
    "SHELL",
    "TERM",
    "PATH",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "GITHUB_WORKSPACE",
    "RUNNER_TEMP",
    "RUNNER_TOOL_CACHE",
];

/// Which environment variables a config may read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EnvPolicy {
    /// Every variable (a terminal; the library's default).
    #[default]
    Any,
    /// Only these (CI: the names given with `--allow-env`), plus [`NOT_SECRET`].
    Only(BTreeSet<String>),
}

impl EnvPolicy {
    /// The policy for this process: `Only(allowed)` when `ci`, else `Any`.
    pub fn for_run(ci: bool, allowed: impl IntoIterator<Item = String>) -> EnvPolicy {
        if ci {
            EnvPolicy::Only(allowed.into_iter().collect())
        } else {
            EnvPolicy::Any
        }
    }

    pub fn allows(&self, var: &str) -> bool {
        match self {
            EnvPolicy::Any => true,
            EnvPolicy::Only(names) => names.contains(var) || NOT_SECRET.contains(&var),
        }
    }
}

static POLICY: OnceLock<EnvPolicy> = OnceLock::new();

/// Set the process's policy once, before any config is read (the binary does, from `CI` and
/// `--allow-env`). Later calls are ignored.
pub fn set_policy(policy: EnvPolicy) {
    let _ = POLICY.set(policy);
}

/// The process's policy (`Any` until set).
pub fn policy() -> &'static EnvPolicy {
    POLICY.get_or_init(EnvPolicy::default)
}

/// Why a variable could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Under CI and not allowed by the invocation.
    NotAllowed,
    /// Set to a value too short to mask.
    TooShort,
}

/// Read `var` through `lookup` for a config: refused when the policy does not allow it or the
/// value is too short to mask; registered as a secret otherwise.
pub fn read_var(var: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Option<String>, Refusal> {
    if !policy().allows(var) {
        return Err(Refusal::NotAllowed);
    }
    let value = lookup(var);
    if let Some(v) = &value {
        if !NOT_SECRET.contains(&var) {
            if !v.is_empty() && v.chars().count() < MIN_SECRET_LEN {
                return Err(Refusal::TooShort);
            }
            register(v);
        }
    }
    Ok(value)
}

struct Registry {
    values: BTreeSet<String>,
    /// Every registered value and its spellings in the sinks, longest first, as one automaton.
    matcher: Option<aho_corasick::AhoCorasick>,
}

static REGISTRY: RwLock<Registry> = RwLock::new(Registry { values: BTreeSet::new(), matcher: None });

/// The spellings a value can take in mcp-pin's outputs: as is, inside a JSON string, in a
/// one-line display (`\u{..}` escapes), percent-encoded (a URL), in XML/HTML text.
fn spellings(v: &str) -> Vec<String> {
    let mut out = vec![v.to_string()];
    let json = serde_json::to_string(v).unwrap_or_default();
    out.push(json.trim_matches('"').to_string());
    let mut canonical = String::new();
    crate::json::write_string(&mut canonical, v);
    out.push(canonical.trim_matches('"').to_string());
    out.push(crate::json::escape_line(v));
    let pct: String = v
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    out.push(pct);
    out.push(v.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;"));
    out.retain(|s| s.chars().count() >= MIN_SECRET_LEN);
    out.sort();
    out.dedup();
    out
}

/// Register `value` as a secret: from now on [`mask`] hides it. Empty values are ignored.
pub fn register(value: &str) {
    if value.is_empty() {
        return;
    }
    let mut reg = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if !reg.values.insert(value.to_string()) {
        return;
    }
    let mut patterns: Vec<String> = reg.values.iter().flat_map(|v| spellings(v)).collect();
    patterns.sort_by_key(|p| std::cmp::Reverse(p.len()));
    patterns.dedup();
    reg.matcher =
        aho_corasick::AhoCorasick::builder().match_kind(aho_corasick::MatchKind::LeftmostLongest).build(&patterns).ok();
}

/// `text` with every registered secret, in any of its output spellings, replaced by [`MASK`].
pub fn mask(text: &str) -> std::borrow::Cow<'_, str> {
    let reg = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    match &reg.matcher {
        Some(m) if m.is_match(text) => {
            let mut out = String::with_capacity(text.len());
            m.replace_all_with(text, &mut out, |_, _, dst| {
                dst.push_str(MASK);
                true
            });
            std::borrow::Cow::Owned(out)
        }
        _ => std::borrow::Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_every_spelling_and_only_registered_values() {
        register("s3cr\"et/value");
        assert_eq!(mask("a s3cr\"et/value b"), "a *** b");
        assert_eq!(mask(r#"{"k":"s3cr\"et/value"}"#), r#"{"k":"***"}"#);
        assert_eq!(mask("u=s3cr%22et%2Fvalue"), "u=***");
        assert_eq!(mask("nothing here"), "nothing here");
    }

    #[test]
    fn policy_allows_named_and_place_variables_only() {
        let p = EnvPolicy::for_run(true, ["TOKEN".to_string()]);
        assert!(p.allows("TOKEN") && p.allows("HOME"));
        assert!(!p.allows("GITHUB_TOKEN"));
        assert!(EnvPolicy::for_run(false, []).allows("GITHUB_TOKEN"));
    }
}
