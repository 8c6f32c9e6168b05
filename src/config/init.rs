//! `mcp-pin init`: a commented `mcp-pin.toml` written from a found client config.
//!
//! Secrets are never copied: env values and header values that look like secrets become
//! `${NAME}` references, and so do literal secrets in URLs and in `--token VALUE` arguments.
//! Feed it a template-mode load ([`Config::load_unresolved`](super::Config::load_unresolved)),
//! so that `${env:X}` in the source becomes `${X}` rather than its value; a resolved config
//! works too (secret-looking values are still replaced by references).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::expand::{escape, is_template, parses_as_template};
use super::{Config, ProbePolicy, ServerConfig, Transport, DEFAULT_TIMEOUT};

/// A commented `mcp-pin.toml` for the servers in `from`, which was read from `source`.
pub fn init_toml(from: &Config, source: &Path) -> String {
    init_toml_from(
        &super::Loaded {
            config: from.clone(),
            format: super::Format::McpServers,
            source: String::new(),
            warnings: vec![],
            skipped: vec![],
            env_files: Default::default(),
        },
        source,
    )
}

/// [`init_toml`] for a whole template-mode load: each server's dotenv file becomes `env_file`
/// (its values stay in the file), and each server left out (a transport mcp-pin does not
/// speak) is written as a comment saying why.
pub fn init_toml_from(loaded: &super::Loaded, source: &Path) -> String {
    init_toml_keeping(loaded, source, &BTreeMap::new())
}

/// [`init_toml_from`], with the servers of `kept` written as the text given (the sections an
/// existing `mcp-pin.toml` has for a server the client config runs through the proxy: the
/// client file no longer says how to start it, the old `mcp-pin.toml` does).
pub fn init_toml_keeping(loaded: &super::Loaded, source: &Path, kept: &BTreeMap<String, String>) -> String {
    let from = &loaded.config;
    let mut body = String::new();
    let mut vars: Vec<String> = Vec::new();
    let mut first_server = None;
    for (name, server) in &from.servers {
        first_server.get_or_insert(name.as_str());
        if let Some(text) = kept.get(name) {
            note_vars(text, &mut vars);
            body.push_str(text.trim_end());
            body.push_str("\n\n");
            continue;
        }
        let mut invented = BTreeMap::new();
        write_server(&mut body, name, server, loaded.env_files.get(name).map(String::as_str), &mut vars, &mut invented);
    }
    for name in kept.keys().filter(|k| !from.servers.contains_key(*k)) {
        first_server.get_or_insert(name.as_str());
        note_vars(&kept[name], &mut vars);
        body.push_str(kept[name].trim_end());
        body.push_str("\n\n");
    }
    for (name, why) in &loaded.skipped {
        let _ = writeln!(body, "# [servers.{}] is not here: {}.\n", key(name), why.replace('\n', " "));
    }
    // Variables that name the machine's own places (`${HOME}`) are no secret to set.
    vars.retain(|v| !crate::secrets::NOT_SECRET.contains(&v.trim_end_matches(":-")));
    let example_server = first_server.unwrap_or("weather");

    let mut out = String::new();
    let _ = writeln!(out, "# mcp-pin.toml: the MCP servers whose tool surface mcp-pin pins in mcp.lock.");
    // The file's name, never the author's absolute path (the file is committed).
    let here = std::env::current_dir().ok();
    let shown = match here.as_deref().and_then(|h| source.strip_prefix(h).ok()) {
        Some(rel) => rel.display().to_string(),
        None if source.is_relative() => source.display().to_string(),
        None => source.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
    };
    let _ = writeln!(out, "# Written by `mcp-pin init` from {shown}.");
    let _ = writeln!(out, "# Every key is described in docs/config.md.");
    out.push_str("#\n# Secrets are not stored here: `${NAME}` is read from the environment when mcp-pin runs\n");
    out.push_str("# (`${NAME:-default}` for a fallback, `$$` for a literal `$`).\n");
    if !vars.is_empty() {
        out.push_str("# Set these before running mcp-pin (in CI: as secrets):\n");
        for v in &vars {
            match v.strip_suffix(":-") {
                Some(v) => {
                    let _ = writeln!(out, "#   {v} (optional: while it is unset, its default is used)");
                }
                None => {
                    let _ = writeln!(out, "#   {v}");
                }
            }
        }
        let mut all: Vec<&str> = vars.iter().map(|v| v.trim_end_matches(":-")).collect();
        all.sort_unstable();
        let _ = writeln!(
            out,
            "# In CI, allow each one the job sets: `--allow-env {}` (the Action's input `allow-env: {}`).",
            all.join(","),
            all.join(",")
        );
    }
    out.push('\n');
    out.push_str(&body);

    let _ = write!(
        out,
        r#"# Probe arguments for one tool: the valid call `check` makes (any TOML table, sent as JSON).
# [servers.{s}.tools.TOOL_NAME]
# args = {{ city = "Oslo", days = 3 }}
# probe = "all"    # per-tool override of the server's `probe`

# Move a rule to another class ("silent" fails the gate, "loud" is reported, "cosmetic" is
# shown with --verbose). `mcp-pin explain` lists the rule ids. A class is never an order: a
# change whose added words carry a cue (a URL, a path outside the project, an instruction to
# the model, another tool's name, hidden characters) is listed first whatever its class.
# [rules]
# {reworded} = "loud"

# Accept one known change, with a reason (and optionally an end date).
# [[ignore]]
# rule = "{reworded_schema}"
# server = "{s}"    # optional
# tool = "TOOL_NAME"    # optional
# pointer = "/inputSchema/properties/city"    # optional JSON pointer prefix
# reason = "upstream rewrites descriptions weekly"
# until = "2027-01-31"    # optional YYYY-MM-DD: the ignore stops applying after this day
"#,
        s = example_server,
        reworded = crate::rules::RuleId::DescriptionChanged,
        reworded_schema = crate::rules::RuleId::SchemaDescriptionChanged,
    );
    out
}

/// The variables `mcp-pin init` makes up for the literal secrets of a client config's server
/// (`API_KEY = "${API_KEY}"` for a literal key, `Bearer ${DOCS_TOKEN}` for a literal token),
/// each with the literal it stands for: what the client hands the proxy as that variable once
/// the server is wrapped.
pub fn invented_vars(name: &str, server: &ServerConfig) -> BTreeMap<String, String> {
    let mut invented = BTreeMap::new();
    write_server(&mut String::new(), name, server, None, &mut Vec::new(), &mut invented);
    invented
}

/// One server's `[servers.NAME]` section as `mcp-pin init` writes it.
pub fn server_toml(name: &str, server: &ServerConfig) -> String {
    let mut out = String::new();
    write_server(&mut out, name, server, None, &mut Vec::new(), &mut BTreeMap::new());
    out
}

/// The sections of an `mcp-pin.toml` text that define server `name` (`[servers.NAME]` and its
/// sub-tables, `[servers.NAME.env]`, `[servers.NAME.tools.T]`), as written, each without the
/// comment and blank lines that trail it (they introduce what follows). `None` when the server
/// has no such header (written as an inline table).
pub fn server_sections(text: &str, name: &str) -> Option<String> {
    let mut chunks: Vec<Vec<&str>> = Vec::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('[') {
            inside = header_path(t).get(..2).is_some_and(|p| p[0] == "servers" && p[1] == name);
            if inside {
                chunks.push(Vec::new());
            }
        }
        if inside {
            if let Some(c) = chunks.last_mut() {
                c.push(line);
            }
        }
    }
    if chunks.is_empty() {
        return None;
    }
    let mut out = String::new();
    for mut c in chunks {
        while c.last().is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) {
            c.pop();
        }
        out.extend(c);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    Some(out)
}

/// The dotted path of a TOML table header (`[servers."a.b".env]` → `servers`, `a.b`, `env`).
fn header_path(line: &str) -> Vec<String> {
    let inner = line.trim_start_matches('[');
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in inner.chars() {
        match (quote, c) {
            (None, ']') => break,
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '.') => out.push(std::mem::take(&mut cur).trim().to_string()),
            (None, c) if c.is_whitespace() => {}
            (_, c) => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    out
}

/// Words of a variable name that say its value is a setting (a region, a log level, a mode).
const SETTING_WORDS: &[&str] = &[
    "REGION",
    "LOCALE",
    "LANG",
    "LANGUAGE",
    "LOG",
    "LEVEL",
    "VERBOSE",
    "VERBOSITY",
    "DEBUG",
    "MODE",
    "TZ",
    "TIMEZONE",
    "COLOR",
    "COLOUR",
    "FORMAT",
    "THEME",
    "ENV",
    "ENVIRONMENT",
    "STAGE",
    "PROFILE",
];

/// The variables a server's templates read that are settings, not secrets: one written with a
/// default (`${REGION:-eu}`: the user wrote a value in the committed file), or whose name says
/// setting (`LOG_LEVEL`, `AWS_REGION`); never one whose name says secret.
fn settings_read(templates: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in templates {
        for (v, default) in super::expand::template_refs(t) {
            let upper = v.to_ascii_uppercase();
            let setting_word = upper.split('_').any(|w| SETTING_WORDS.contains(&w));
            let defaulted = default.is_some_and(|d| !d.is_empty());
            if (defaulted || setting_word) && !secret_name(&v) && !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// A literal of a template with no reference (`$$` is `$`).
fn unescape(t: &str) -> String {
    t.replace("$$", "$")
}

fn write_server(
    out: &mut String,
    name: &str,
    server: &ServerConfig,
    env_file: Option<&str>,
    vars: &mut Vec<String>,
    invented: &mut BTreeMap<String, String>,
) {
    let _ = writeln!(out, "[servers.{}]", key(name));
    let prefix = var_name(name);
    let mut written: Vec<String> = Vec::new();
    match &server.transport {
        Transport::Stdio(s) => {
            let _ = writeln!(out, "command = {}", quote(&template_or_escaped(&s.command_template)));
            written.push(s.command_template.clone());
            if !s.args_template.is_empty() {
                let args = scrub_args(&s.args_template, &prefix, invented);
                written.extend(args.iter().cloned());
                let list: Vec<String> = args.iter().map(|a| quote(a)).collect();
                let _ = writeln!(out, "args = [{}]", list.join(", "));
                args.iter().for_each(|a| note_vars(a, vars));
            }
            if let Some(cwd) = &s.cwd_template {
                note_vars(cwd, vars);
                let _ = writeln!(out, "cwd = {}", quote(&template_or_escaped(cwd)));
            }
            if let Some(f) = env_file {
                let _ = writeln!(out, "env_file = {}          # read when mcp-pin runs; `env` wins over it", quote(f));
                note_vars(f, vars);
            }
        }
        Transport::Http(h) => {
            // Each literal secret component becomes a `${VAR}`, component by component.
            let mut n = 0;
            let url = super::map_url_secrets(&template_or_escaped(&h.url_template), |secret| {
                n += 1;
                let v = if n == 1 { format!("{prefix}_URL_SECRET") } else { format!("{prefix}_URL_SECRET_{n}") };
                invented.insert(v.clone(), unescape(secret));
                format!("${{{v}}}")
            });
            written.push(url.clone());
            note_vars(&url, vars);
            let note = if n > 0 {
                "    # a literal secret in the URL (its userinfo, a query value or a token in its path) became ${…}: set it in the environment"
            } else {
                ""
            };
            let _ = writeln!(out, "url = {}{note}", quote(&url));
        }
    }
    // Values of the sub-tables, to know which variables are settings (written before them).
    match &server.transport {
        Transport::Stdio(s) => written.extend(s.env.values().cloned()),
        Transport::Http(h) => written.extend(h.headers.values().cloned()),
    }
    let settings = settings_read(&written.iter().map(String::as_str).collect::<Vec<_>>());
    if !settings.is_empty() {
        let list: Vec<String> = settings.iter().map(|v| quote(v)).collect();
        let _ = writeln!(
            out,
            "not_secret = [{}]    # settings, not secrets: never masked, never refused as too short",
            list.join(", ")
        );
    }
    // Settings mcp-pin adds: written when set, shown commented with their defaults otherwise.
    if server.timeout != DEFAULT_TIMEOUT {
        let _ = writeln!(out, "timeout = \"{}ms\"", server.timeout.as_millis());
    } else {
        out.push_str("# timeout = \"30s\"                # per request: \"500ms\", \"30s\", \"2m\"\n");
    }
    // The client the config was read for: mcp-pin presents itself as it (docs/config.md).
    let client = server.client.info();
    if server.client != super::Client::default() {
        let _ = writeln!(
            out,
            "client = {}               # mcp-pin introduces itself as {}",
            quote(client.key),
            client.name
        );
    } else {
        let keys: Vec<&str> = super::Client::keys().collect();
        let _ = writeln!(
            out,
            "# client = \"{}\"          # the MCP client mcp-pin introduces itself as: {}",
            client.key,
            keys.join(", ")
        );
    }
    if !server.client_capabilities.is_empty() {
        let caps: Vec<String> = server.client_capabilities.iter().map(|c| quote(c)).collect();
        let _ = writeln!(out, "client_capabilities = [{}]", caps.join(", "));
    } else {
        out.push_str(
            "# client_capabilities = [\"roots\"]  # the default for a stdio server; add sampling, elicitation\n",
        );
    }
    match server.probe {
        ProbePolicy::Sandbox => out.push_str(
            "# probe = \"sandbox\"                # read-only tools live, the others in a sandbox (default); \"read-only\" | \"all\" | \"none\"\n",
        ),
        ProbePolicy::ReadOnly => out.push_str("probe = \"read-only\"\n"),
        ProbePolicy::All => out.push_str("probe = \"all\"\n"),
        ProbePolicy::None => out.push_str("probe = \"none\"\n"),
    }
    // Sub-tables last: keys after a `[table]` header belong to it.
    match &server.transport {
        Transport::Stdio(s) => {
            if !s.env.is_empty() {
                let _ = writeln!(out, "\n[servers.{}.env]", key(name));
                for (k, v) in &s.env {
                    let value = if is_template(v) {
                        v.clone()
                    } else if looks_secret(k, v) {
                        invented.insert(var_name(k), unescape(v));
                        format!("${{{}}}", var_name(k))
                    } else {
                        template_or_escaped(v)
                    };
                    note_vars(&value, vars);
                    let _ = writeln!(out, "{} = {}", key(k), quote(&value));
                }
            }
        }
        Transport::Http(h) => {
            if !h.headers.is_empty() {
                let _ = writeln!(out, "\n[servers.{}.headers]", key(name));
                for (k, v) in &h.headers {
                    let value = header_value(&prefix, k, v, invented);
                    note_vars(&value, vars);
                    let _ = writeln!(out, "{} = {}", key(k), quote(&value));
                }
            }
        }
    }
    out.push('\n');
}

fn header_value(prefix: &str, header: &str, v: &str, invented: &mut BTreeMap<String, String>) -> String {
    if is_template(v) {
        return v.to_string();
    }
    let lower = header.to_ascii_lowercase();
    if lower == "authorization" || lower == "proxy-authorization" {
        let var = format!("{prefix}_TOKEN");
        if let Some((scheme, token)) = v.split_once(' ') {
            invented.insert(var.clone(), unescape(token));
            return format!("{scheme} ${{{var}}}");
        }
        invented.insert(var.clone(), unescape(v));
        return format!("${{{var}}}");
    }
    if looks_secret(header, v) {
        let var = format!("{prefix}_{}", var_name(header));
        invented.insert(var.clone(), unescape(v));
        return format!("${{{var}}}");
    }
    template_or_escaped(v)
}

/// Arguments with literal secrets (`--token VALUE`, `--api-key=VALUE`, token-shaped values)
/// turned into references.
fn scrub_args(args: &[String], prefix: &str, invented: &mut BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut secret_flag: Option<String> = None;
    for a in args {
        let a = template_or_escaped(a);
        if let Some(flag) = secret_flag.take() {
            if !is_template(&a) && !a.starts_with('-') {
                let var = format!("{prefix}_{flag}");
                invented.insert(var.clone(), unescape(&a));
                out.push(format!("${{{var}}}"));
                continue;
            }
        }
        if let Some(flag) = a.strip_prefix("--").or_else(|| a.strip_prefix('-')) {
            match flag.split_once('=') {
                Some((f, v)) if !is_template(v) && looks_secret(f, v) => {
                    let var = format!("{prefix}_{}", var_name(f));
                    invented.insert(var.clone(), unescape(v));
                    out.push(format!("{}=${{{var}}}", &a[..a.len() - v.len() - 1]));
                    continue;
                }
                Some(_) => {}
                None if secret_name(flag) => secret_flag = Some(var_name(flag)),
                None => {}
            }
        } else if !is_template(&a) && secret_shaped(&a) {
            let var = format!("{prefix}_SECRET");
            invented.insert(var.clone(), unescape(&a));
            out.push(format!("${{{var}}}"));
            continue;
        }
        out.push(a);
    }
    out
}

/// Every variable `template` reads, into `vars`: a variable read only with a default
/// (`${REGION:-eu}`) is noted as `REGION:-` (needed in CI only when it is set).
fn note_vars(template: &str, vars: &mut Vec<String>) {
    for (v, default) in super::expand::template_refs(template) {
        let optional = format!("{v}:-");
        match (default.is_some(), vars.iter().position(|x| *x == v || *x == optional)) {
            (_, None) => vars.push(if default.is_some() { optional } else { v }),
            // Read without a default somewhere: needed.
            (false, Some(i)) => vars[i] = v,
            (true, Some(_)) => {}
        }
    }
}

/// A value as an `mcp-pin.toml` template: kept when it already parses as one, else `$` escaped.
fn template_or_escaped(v: &str) -> String {
    if parses_as_template(v) {
        v.to_string()
    } else {
        escape(v)
    }
}

/// Whether a name (env var, header, flag) says its value is a secret.
fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let words: Vec<&str> = upper.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    const WORDS: &[&str] = &[
        "KEY",
        "APIKEY",
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "PWD",
        "PASS",
        "AUTH",
        "AUTHORIZATION",
        "CREDENTIAL",
        "CREDENTIALS",
        "PRIVATE",
        "SESSION",
        "COOKIE",
        "PAT",
        "SIGNATURE",
        "DSN",
        "BEARER",
    ];
    const PARTS: &[&str] = &["TOKEN", "SECRET", "PASSWORD", "APIKEY", "CREDENTIAL", "PRIVATEKEY", "ACCESSKEY"];
    words.iter().any(|w| WORDS.contains(w)) || PARTS.iter().any(|p| upper.replace(['_', '-'], "").contains(p))
}

/// Prefixes of the credentials services issue (OpenAI, Stripe, GitHub, GitLab, Slack, AWS,
/// Google, JWTs, npm, Hugging Face, Linear).
const PREFIXES: &[&str] = &[
    "sk-",
    "sk_",
    "pk_",
    "rk_",
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
    "AKIA",
    "ASIA",
    "AIza",
    "eyJ",
    "npm_",
    "hf_",
    "lin_api_",
];

/// Whether a URL path segment is a token (`https://host/sk-…/mcp`, a service's secret URL): a
/// known credential prefix, a UUID, or a long run of letters and digits mixed, as random as a
/// key is (`2024-01-01-release-notes` is none of these).
pub(crate) fn token_segment(seg: &str) -> bool {
    if PREFIXES.iter().any(|p| seg.starts_with(p)) && seg.len() >= 12 {
        return true;
    }
    let groups: Vec<&str> = seg.split('-').collect();
    let uuid = groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()));
    let run = seg.split(|c: char| !c.is_ascii_alphanumeric()).max_by_key(|r| r.len()).unwrap_or("");
    uuid || (run.len() >= 16
        && run.bytes().filter(u8::is_ascii_digit).count() >= 2
        && run.bytes().filter(u8::is_ascii_alphabetic).count() >= 2
        && entropy_bits(run) >= 3.0)
}

/// Shannon entropy of `s`, in bits per character.
fn entropy_bits(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = s.chars().count() as f64;
    counts.values().map(|&k| k as f64 / n).map(|p| -p * p.log2()).sum()
}

/// Whether a value looks like a credential whatever its name.
fn secret_shaped(v: &str) -> bool {
    if PREFIXES.iter().any(|p| v.starts_with(p)) && v.len() >= 12 {
        return true;
    }
    // A URL with a password (postgres://user:pass@host/db).
    if let Some((_, rest)) = v.split_once("://") {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.rsplit_once('@').is_some_and(|(ui, _)| ui.contains(':')) {
            return true;
        }
    }
    // Long, unbroken, mixed letters and digits: an API key more likely than a word or a path.
    v.len() >= 20
        && !v.contains(|c: char| c.is_whitespace() || c == '/' || c == '\\' || c == '.')
        && v.chars().any(|c| c.is_ascii_digit())
        && v.chars().any(|c| c.is_ascii_alphabetic())
}

fn looks_secret(name: &str, v: &str) -> bool {
    if v.is_empty() {
        return false;
    }
    if secret_name(name) {
        // Flags and obvious non-secrets stay.
        return !matches!(v, "true" | "false" | "0" | "1" | "yes" | "no");
    }
    secret_shaped(v)
}

/// `UPPER_SNAKE` variable name from any text.
fn var_name(s: &str) -> String {
    let mut out: String =
        s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// A TOML key, quoted unless bare.
fn key(k: &str) -> String {
    if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        k.to_string()
    } else {
        quote(k)
    }
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_init_secret_heuristics() {
        assert!(looks_secret("BRAVE_API_KEY", "abc"));
        assert!(looks_secret("GITHUB_PERSONAL_ACCESS_TOKEN", "x"));
        assert!(looks_secret("DB_PASSWORD", "hunter2"));
        assert!(looks_secret("X", "sk-abcdef1234567890"));
        assert!(looks_secret("DATABASE_URL", "postgres://u:pw@h/db"));
        assert!(looks_secret("X", "a8f3k2m9q7w1e5r6t4y0"));
        assert!(!looks_secret("PATH", "/usr/bin:/bin"));
        assert!(!looks_secret("LOG_LEVEL", "debug"));
        assert!(!looks_secret("KEYBOARD", "us"));
        assert!(!looks_secret("NODE_ENV", "production"));
        assert!(!looks_secret("USE_AUTH", "true"));
        assert!(!looks_secret("DB_PATH", "/Users/alice/projects/data/test.db"));
    }

    #[test]
    fn config_init_args_and_headers() {
        let args: Vec<String> = ["--token", "abc123", "--api-key=zzz", "--verbose", "ghp_0123456789abcdef", "${X}"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            scrub_args(&args, "GH", &mut BTreeMap::new()),
            ["--token", "${GH_TOKEN}", "--api-key=${GH_API_KEY}", "--verbose", "${GH_SECRET}", "${X}"]
        );
        assert_eq!(header_value("GH", "Authorization", "Bearer ghp_x", &mut BTreeMap::new()), "Bearer ${GH_TOKEN}");
        assert_eq!(header_value("GH", "Authorization", "Bearer ${T}", &mut BTreeMap::new()), "Bearer ${T}");
        assert_eq!(header_value("GH", "X-Api-Key", "k", &mut BTreeMap::new()), "${GH_X_API_KEY}");
        assert_eq!(header_value("GH", "Accept", "application/json", &mut BTreeMap::new()), "application/json");
        assert_eq!(key("a.b"), "\"a.b\"");
        for token in [
            "sk-proj-abc123def456",
            "ghp_0123456789abcdefABCD",
            "550e8400-e29b-41d4-a716-446655440000",
            "Zx81kQ2mN7pL0vR5tY3wB9cD",
            "key_4f9QmZ2xL8rT1vWc",
        ] {
            assert!(token_segment(token), "{token}");
        }
        for plain in
            ["mcp", "v1", "sse", "2024-01-01-release-notes-v2", "my-company-workspace-prod", "aaaaaaaaaaaaaaaaaaaaaa11"]
        {
            assert!(!token_segment(plain), "{plain}");
        }
        assert_eq!(key("a-b_c"), "a-b_c");
        let toml = "# head\n[servers.a]\ncommand = \"x\"\n# note\n\n[servers.\"b\"]\ncommand = \"y\"\n\n[servers.a.env]\nK = \"${K}\"\n\n# Probe arguments\n# [rules]\n";
        assert_eq!(
            server_sections(toml, "a").unwrap(),
            "[servers.a]\ncommand = \"x\"\n[servers.a.env]\nK = \"${K}\"\n"
        );
        assert_eq!(server_sections(toml, "b").unwrap(), "[servers.\"b\"]\ncommand = \"y\"\n");
        assert_eq!(server_sections(toml, "c"), None);
        assert_eq!(quote("a\"b\\"), "\"a\\\"b\\\\\"");
    }
}
