//! `${VAR}` expansion.
//!
//! Two dialects:
//! - [`Dialect::McpPin`] (`mcp-pin.toml`): `${VAR}`, `${VAR:-default}`, `$$` for a literal `$`.
//!   Any other `$` is literal (`$HOME` is not expanded: write `${HOME}`).
//! - [`Dialect::Client`] (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`, Claude Desktop):
//!   the union of what those clients expand: `${VAR}`, `${VAR:-default}` (Claude Code),
//!   `${env:VAR}`, `${input:ID}`, `${workspaceFolder}`, `${workspaceFolderBasename}`,
//!   `${userHome}`, `${pathSeparator}`, `${/}` (VS Code, Cursor). Every other `$` is literal.
//!
//! Each string is parsed once into [`Piece`]s, then either resolved against an environment or
//! re-spelled as an `mcp-pin.toml` template (what the lockfile and `init` record).

use std::path::Path;

/// Environment lookup: `Some(value)` when set.
pub type EnvFn<'a> = &'a dyn Fn(&str) -> Option<String>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    McpPin,
    Client,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(String),
    Var {
        name: String,
        default: Option<String>,
    },
    /// VS Code `${input:ID}`: read from `MCP_PIN_INPUT_<ID>`.
    Input {
        id: String,
    },
    WorkspaceFolder,
    WorkspaceFolderBasename,
    UserHome,
    PathSeparator,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpandError {
    /// A referenced variable is not set (and has no default).
    Missing { var: String },
    /// `${input:ID}` with no `MCP_PIN_INPUT_<ID>` set.
    MissingInput { input: String, var: String },
    /// Malformed reference; the message never contains a resolved value.
    Syntax(String),
    /// Under CI, the invocation did not allow this variable (`--allow-env`).
    NotAllowed { var: String },
    /// Set to a value too short to be masked in output (see [`crate::secrets::MIN_SECRET_LEN`]).
    TooShort { var: String },
}

/// Read one variable for a config through the process's [`crate::secrets`] policy.
fn read(var: &str, env: EnvFn<'_>) -> Result<Option<String>, ExpandError> {
    crate::secrets::read_var(var, env).map_err(|r| refused(var, r))
}

fn refused(var: &str, r: crate::secrets::Refusal) -> ExpandError {
    match r {
        crate::secrets::Refusal::NotAllowed => ExpandError::NotAllowed { var: var.to_string() },
        crate::secrets::Refusal::TooShort => ExpandError::TooShort { var: var.to_string() },
    }
}

/// The environment variable that stands in for VS Code's `${input:ID}` prompt.
pub fn input_var(id: &str) -> String {
    let mut s = String::from(crate::env_vars::MCP_PIN_INPUT_PREFIX);
    for c in id.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_uppercase());
        } else {
            s.push('_');
        }
    }
    s
}

fn is_var_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse(s: &str, dialect: Dialect) -> Result<Vec<Piece>, ExpandError> {
    let mut out: Vec<Piece> = Vec::new();
    let mut lit = String::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < s.len() {
        let c = s[i..].chars().next().unwrap_or('\0');
        if c != '$' {
            lit.push(c);
            i += c.len_utf8();
            continue;
        }
        let next = bytes.get(i + 1).copied();
        match next {
            Some(b'$') if dialect == Dialect::McpPin => {
                lit.push('$');
                i += 2;
            }
            Some(b'{') => {
                let Some(close) = s[i + 2..].find('}') else {
                    return Err(ExpandError::Syntax(format!(
                        "unterminated `${{`: close it with `}}`{}",
                        if dialect == Dialect::McpPin { ", or write `$$` for a literal `$`" } else { "" }
                    )));
                };
                let inner = &s[i + 2..i + 2 + close];
                let piece = parse_ref(inner, dialect)?;
                if !lit.is_empty() {
                    out.push(Piece::Lit(std::mem::take(&mut lit)));
                }
                out.push(piece);
                i += 2 + close + 1;
            }
            _ => {
                lit.push('$');
                i += 1;
            }
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    Ok(out)
}

fn parse_ref(inner: &str, dialect: Dialect) -> Result<Piece, ExpandError> {
    let (name, default) = match inner.split_once(":-") {
        Some((n, d)) => (n, Some(d.to_string())),
        None => (inner, None),
    };
    if is_var_name(name) {
        if dialect == Dialect::Client && default.is_none() {
            match name {
                "workspaceFolder" => return Ok(Piece::WorkspaceFolder),
                "workspaceFolderBasename" => return Ok(Piece::WorkspaceFolderBasename),
                "userHome" => return Ok(Piece::UserHome),
                "pathSeparator" => return Ok(Piece::PathSeparator),
                _ => {}
            }
        }
        return Ok(Piece::Var { name: name.to_string(), default });
    }
    if dialect == Dialect::Client {
        if inner == "/" {
            return Ok(Piece::PathSeparator);
        }
        if let Some(v) = inner.strip_prefix("env:") {
            if is_var_name(v) {
                return Ok(Piece::Var { name: v.to_string(), default: None });
            }
        }
        if let Some(id) = inner.strip_prefix("input:") {
            if !id.is_empty() {
                return Ok(Piece::Input { id: id.to_string() });
            }
        }
        if let Some((kind, _)) = inner.split_once(':') {
            return Err(ExpandError::Syntax(format!(
                "`${{{inner}}}`: `${{{kind}:...}}` variables are resolved by the editor and mcp-pin cannot resolve them; \
                 use `${{env:NAME}}` or write the value in mcp-pin.toml"
            )));
        }
    }
    let _ = inner; // never echoed: it may be part of a literal secret
    Err(ExpandError::Syntax(format!(
        "invalid variable reference: `${{` must be followed by a name (letters, digits and `_`, not starting with a digit) and `}}`{}",
        if dialect == Dialect::McpPin { "; write `$${` for a literal `${`" } else { "" }
    )))
}

/// Expansion context for one config file.
pub struct Expander<'a> {
    pub dialect: Dialect,
    /// `None`: template mode (no lookups, values are the templates).
    pub env: Option<EnvFn<'a>>,
    /// `${workspaceFolder}` (client configs): the project folder.
    pub workspace: &'a Path,
    /// Variables the config says are no secret (`not_secret`): settings such as a region.
    pub not_secret: &'a [String],
}

/// A string both resolved and as an `mcp-pin.toml` template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub value: String,
    pub template: String,
    /// Whether the string had any reference (`${...}`).
    pub has_refs: bool,
}

impl Expander<'_> {
    pub fn expand(&self, s: &str) -> Result<Expanded, ExpandError> {
        let pieces = parse(s, self.dialect)?;
        let template = to_template(&pieces, self.workspace);
        let has_refs = pieces.iter().any(|p| !matches!(p, Piece::Lit(_)));
        let value = match self.env {
            None => template.clone(),
            Some(env) => self.resolve(&pieces, env)?,
        };
        Ok(Expanded { value, template, has_refs })
    }

    fn resolve(&self, pieces: &[Piece], env: EnvFn<'_>) -> Result<String, ExpandError> {
        let mut out = String::new();
        for p in pieces {
            match p {
                Piece::Lit(s) => out.push_str(s),
                Piece::Var { name, default } => match (self.read_ref(name, default.as_deref(), env)?, default) {
                    (Some(v), Some(d)) if v.is_empty() => out.push_str(d),
                    (Some(v), _) => out.push_str(&v),
                    (None, Some(d)) => out.push_str(d),
                    (None, None) => return Err(ExpandError::Missing { var: name.clone() }),
                },
                Piece::Input { id } => {
                    let var = input_var(id);
                    match read(&var, env)? {
                        Some(v) => out.push_str(&v),
                        None => return Err(ExpandError::MissingInput { input: id.clone(), var }),
                    }
                }
                Piece::WorkspaceFolder => out.push_str(&self.workspace.to_string_lossy()),
                Piece::WorkspaceFolderBasename => out.push_str(&basename(self.workspace)),
                Piece::UserHome => match read("HOME", env)?.or(read("USERPROFILE", env)?) {
                    Some(h) => out.push_str(&h),
                    None => return Err(ExpandError::Missing { var: "HOME".into() }),
                },
                Piece::PathSeparator => out.push(std::path::MAIN_SEPARATOR),
            }
        }
        Ok(out)
    }
}

impl Expander<'_> {
    /// One `${VAR}` read: a variable the config marks `not_secret`, or one given the very default
    /// written beside it, is a setting (`secrets::read_setting`); any other is a secret.
    fn read_ref(&self, name: &str, default: Option<&str>, env: EnvFn<'_>) -> Result<Option<String>, ExpandError> {
        let marked = self.not_secret.iter().any(|n| n == name);
        if !marked && default.is_none() {
            return read(name, env);
        }
        crate::secrets::read_setting(name, env, default, marked).map_err(|r| refused(name, r))
    }
}

/// A variable reference as a client config spells it, and the variable `mcp-pin.toml` reads
/// for it (`${input:notes-key}` → `MCP_PIN_INPUT_NOTES_KEY`, `${env:X}` → `X`, `${userHome}` →
/// `HOME`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRef {
    pub var: String,
    /// As written: `${input:notes-key}`, `${env:X}`, `${X:-d}`.
    pub spelling: String,
    /// The default written beside it (`${X:-d}`).
    pub default: Option<String>,
}

/// Every variable reference of a client config's string, in order.
pub fn client_refs(s: &str) -> Vec<ClientRef> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let Some(close) = after.find('}') else { break };
        let inner = &after[..close];
        let (var, default) = match parse_ref(inner, Dialect::Client) {
            Ok(Piece::Var { name, default }) => (Some(name), default),
            Ok(Piece::Input { id }) => (Some(input_var(&id)), None),
            Ok(Piece::UserHome) => (Some("HOME".to_string()), None),
            _ => (None, None),
        };
        if let Some(var) = var {
            out.push(ClientRef { var, spelling: format!("${{{inner}}}"), default });
        }
        rest = &after[close + 1..];
    }
    out
}

/// A client config's string as the client would hand it over, for a check made before anyone
/// runs it: a reference with a default gets its default, any other reference `sample` (a value
/// nobody knows yet), `${workspaceFolder}` the project folder.
pub fn sample_client_value(s: &str, workspace: &Path, sample: &str) -> String {
    let Ok(pieces) = parse(s, Dialect::Client) else { return s.to_string() };
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Lit(l) => out.push_str(&l),
            Piece::Var { default: Some(d), .. } => out.push_str(&d),
            Piece::Var { default: None, .. } | Piece::Input { .. } | Piece::UserHome => out.push_str(sample),
            Piece::WorkspaceFolder => out.push_str(&workspace.to_string_lossy()),
            Piece::WorkspaceFolderBasename => out.push_str(&basename(workspace)),
            Piece::PathSeparator => out.push(std::path::MAIN_SEPARATOR),
        }
    }
    out
}

fn basename(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Escape a literal for `mcp-pin.toml`: `$` becomes `$$`.
pub fn escape(s: &str) -> String {
    s.replace('$', "$$")
}

fn to_template(pieces: &[Piece], workspace: &Path) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Lit(s) => out.push_str(&escape(s)),
            Piece::Var { name, default: None } => out.push_str(&format!("${{{name}}}")),
            Piece::Var { name, default: Some(d) } => out.push_str(&format!("${{{name}:-{}}}", escape(d))),
            Piece::Input { id } => out.push_str(&format!("${{{}}}", input_var(id))),
            // mcp-pin resolves relative paths from the config folder, which is the workspace.
            Piece::WorkspaceFolder => out.push('.'),
            Piece::WorkspaceFolderBasename => out.push_str(&escape(&basename(workspace))),
            Piece::UserHome => out.push_str("${HOME}"),
            Piece::PathSeparator => out.push('/'),
        }
    }
    out
}

/// Whether `s` parses as an `mcp-pin.toml` template holding at least one `${VAR}` reference.
pub fn is_template(s: &str) -> bool {
    parse(s, Dialect::McpPin).map(|p| p.iter().any(|x| !matches!(x, Piece::Lit(_)))).unwrap_or(false)
}

/// The variable names an `mcp-pin.toml` template references, in order, without duplicates.
pub fn template_vars(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in parse(s, Dialect::McpPin).unwrap_or_default() {
        if let Piece::Var { name, default: None } = p {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Every variable an `mcp-pin.toml` template reads, with or without a default, in order,
/// without duplicates.
pub fn template_refs(s: &str) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    for p in parse(s, Dialect::McpPin).unwrap_or_default() {
        if let Piece::Var { name, default } = p {
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, default));
            }
        }
    }
    out
}

/// Whether `s` parses as an `mcp-pin.toml` template (with or without references).
pub fn parses_as_template(s: &str) -> bool {
    parse(s, Dialect::McpPin).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn env(name: &str) -> Option<String> {
        match name {
            "A" => Some("alpha".into()),
            "EMPTY" => Some(String::new()),
            "MCP_PIN_INPUT_API_KEY" => Some("from-input".into()),
            "HOME" => Some("/home/u".into()),
            _ => None,
        }
    }

    fn ex(d: Dialect, s: &str) -> Result<Expanded, ExpandError> {
        let ws = PathBuf::from("/proj");
        Expander { dialect: d, env: Some(&env), workspace: &ws, not_secret: &[] }.expand(s)
    }

    fn tpl(d: Dialect, s: &str) -> String {
        let ws = PathBuf::from("/proj");
        Expander { dialect: d, env: None, workspace: &ws, not_secret: &[] }.expand(s).unwrap().value
    }

    #[test]
    fn config_expand_mcp_pin() {
        assert_eq!(ex(Dialect::McpPin, "x${A}y").unwrap().value, "xalphay");
        assert_eq!(ex(Dialect::McpPin, "${A}${A}").unwrap().value, "alphaalpha");
        assert_eq!(ex(Dialect::McpPin, "$${A}").unwrap().value, "${A}");
        assert_eq!(ex(Dialect::McpPin, "a$$b").unwrap().value, "a$b");
        assert_eq!(ex(Dialect::McpPin, "^x$").unwrap().value, "^x$");
        assert_eq!(ex(Dialect::McpPin, "5$ off").unwrap().value, "5$ off");
        assert_eq!(ex(Dialect::McpPin, "${NOPE:-dflt}").unwrap().value, "dflt");
        assert_eq!(ex(Dialect::McpPin, "${EMPTY:-dflt}").unwrap().value, "dflt");
        assert_eq!(ex(Dialect::McpPin, "${EMPTY}").unwrap().value, "");
        assert_eq!(ex(Dialect::McpPin, "${A:-dflt}").unwrap().value, "alpha");
        assert_eq!(ex(Dialect::McpPin, "${NOPE:-}").unwrap().value, "");
        assert_eq!(ex(Dialect::McpPin, "héllo ${A} ✓").unwrap().value, "héllo alpha ✓");
        assert!(!ex(Dialect::McpPin, "plain").unwrap().has_refs);
        assert!(ex(Dialect::McpPin, "${A}").unwrap().has_refs);
    }

    #[test]
    fn config_expand_errors() {
        assert_eq!(ex(Dialect::McpPin, "${NOPE}"), Err(ExpandError::Missing { var: "NOPE".into() }));
        assert!(matches!(ex(Dialect::McpPin, "${A"), Err(ExpandError::Syntax(m)) if m.contains("unterminated")));
        assert_eq!(ex(Dialect::McpPin, "$HOME/x").unwrap().value, "$HOME/x");
        assert!(matches!(ex(Dialect::McpPin, "${1X}"), Err(ExpandError::Syntax(_))));
        assert!(matches!(ex(Dialect::McpPin, "${env:A}"), Err(ExpandError::Syntax(_))));
        assert!(matches!(ex(Dialect::McpPin, "${}"), Err(ExpandError::Syntax(_))));
    }

    #[test]
    fn config_expand_client() {
        assert_eq!(ex(Dialect::Client, "${env:A}").unwrap().value, "alpha");
        assert_eq!(ex(Dialect::Client, "${A}").unwrap().value, "alpha");
        assert_eq!(ex(Dialect::Client, "${workspaceFolder}/x").unwrap().value, "/proj/x");
        assert_eq!(ex(Dialect::Client, "${workspaceFolderBasename}").unwrap().value, "proj");
        assert_eq!(ex(Dialect::Client, "${userHome}/.cfg").unwrap().value, "/home/u/.cfg");
        assert_eq!(ex(Dialect::Client, "${input:api-key}").unwrap().value, "from-input");
        assert_eq!(ex(Dialect::Client, "$HOME $$").unwrap().value, "$HOME $$");
        assert_eq!(
            ex(Dialect::Client, "${input:other}"),
            Err(ExpandError::MissingInput { input: "other".into(), var: "MCP_PIN_INPUT_OTHER".into() })
        );
        assert!(matches!(ex(Dialect::Client, "${config:x.y}"), Err(ExpandError::Syntax(m)) if m.contains("editor")));
    }

    #[test]
    fn config_expand_templates() {
        assert_eq!(tpl(Dialect::Client, "Bearer ${env:TOKEN}"), "Bearer ${TOKEN}");
        assert_eq!(tpl(Dialect::Client, "${input:api-key}"), "${MCP_PIN_INPUT_API_KEY}");
        assert_eq!(tpl(Dialect::Client, "${workspaceFolder}/build/x.js"), "./build/x.js");
        assert_eq!(tpl(Dialect::Client, "${userHome}/x"), "${HOME}/x");
        assert_eq!(tpl(Dialect::Client, "cost$"), "cost$$");
        assert_eq!(tpl(Dialect::McpPin, "a$$b${X:-d}"), "a$$b${X:-d}");
        assert!(is_template("Bearer ${T}"));
        assert!(!is_template("plain $$"));
        assert!(!is_template("$HOME"));
        assert!(!is_template("a${"));
        assert_eq!(input_var("api-key"), "MCP_PIN_INPUT_API_KEY");
    }
}
