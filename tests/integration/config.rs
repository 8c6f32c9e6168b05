//! Integration tests for `mcp_pin::config`: loading `mcp-pin.toml` and client configs.
use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_pin::config::{self, Config, ConfigError, Format, Loaded, ProbePolicy, Transport};
use serde_json::json;

const CANARY: &str = "sk-CANARY-7f3a9c1e5b2d4f60";

fn env(name: &str) -> Option<String> {
    match name {
        "WEATHER_KEY" | "MCP_TOKEN" | "GITHUB_PAT" | "LINEAR_TOKEN" | "WEATHER_API_KEY" | "URL_TOKEN" => {
            Some(CANARY.to_string())
        }
        "MCP_PIN_INPUT_PERPLEXITY_KEY" => Some(CANARY.to_string()),
        "HOME_FOR_TEST" => Some("/home/tester".into()),
        "HOME" => Some("/home/tester".into()),
        "EMPTY" => Some(String::new()),
        _ => None,
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/configs")
}

fn load_file(path: &Path) -> Result<Loaded, ConfigError> {
    Config::load_with(path, Some(&env))
}

/// Write `text` as `mcp-pin.toml` in a fresh folder and load it.
fn load_toml(text: &str) -> Result<Config, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-pin.toml");
    std::fs::write(&path, text).unwrap();
    load_file(&path).map(|l| l.config)
}

/// Expect an error with a line number; return (line, full message).
fn err_line(text: &str) -> (usize, String) {
    let e = load_toml(text).expect_err("expected an error");
    let msg = e.to_string();
    assert!(msg.contains("mcp-pin.toml"), "error must name the file: {msg}");
    let line = e.line().unwrap_or_else(|| panic!("error has no line: {msg}"));
    assert!(msg.contains(&format!("mcp-pin.toml:{line}:")), "message shows the line: {msg}");
    (line, msg)
}

fn rules_table_ready() -> bool {
    if mcp_pin::rules::RULES.is_empty() {
        common::skip("crate::rules::RULES is still empty (known-rule-id checks need it)");
        return false;
    }
    true
}

fn stdio(c: &Config, name: &str) -> config::Stdio {
    match &c.servers[name].transport {
        Transport::Stdio(s) => s.clone(),
        Transport::Http(_) => panic!("{name} is http"),
    }
}

fn http(c: &Config, name: &str) -> config::Http {
    match &c.servers[name].transport {
        Transport::Http(h) => h.clone(),
        Transport::Stdio(_) => panic!("{name} is stdio"),
    }
}

// ---------------------------------------------------------------- mcp-pin.toml: happy path

#[test]
fn toml_fixture_loads_with_everything() {
    let path = fixtures().join("toml/mcp-pin.toml");
    let loaded = load_file(&path).unwrap();
    assert_eq!(loaded.format, Format::McpPin);
    let c = loaded.config;
    assert_eq!(c.path.as_deref(), Some(path.as_path()));
    assert_eq!(c.dir, fixtures().join("toml"));
    assert_eq!(c.servers.keys().collect::<Vec<_>>(), ["local", "remote", "weather"]);

    let w = &c.servers["weather"];
    assert_eq!(w.timeout, Duration::from_millis(500));
    assert_eq!(w.client_capabilities, ["roots", "sampling"]);
    assert_eq!(w.probe, ProbePolicy::All);
    let s = stdio(&c, "weather");
    assert_eq!(s.command, "node", "bare command names stay for PATH lookup");
    assert_eq!(s.command_template, "node");
    assert_eq!(s.args, ["build/index.js", "--key-file", "/etc/keys/weather"]);
    assert_eq!(s.args_template, ["build/index.js", "--key-file", "${KEYS_DIR:-/etc/keys}/weather"]);
    assert_eq!(s.env["API_KEY"], CANARY);
    assert_eq!(s.env["MODE"], "prod$1", "$$ escapes a $");
    assert_eq!(s.cwd.as_deref(), Some(fixtures().join("toml/servers/weather").as_path()));
    assert_eq!(s.cwd_template.as_deref(), Some("servers/weather"));

    let f = &w.tools["forecast"];
    assert_eq!(
        f.args,
        Some(json!({"city": "Oslo", "days": 3, "opts": {"metric": true, "ratio": 0.5}, "tags": ["a", "b"]}))
    );
    assert_eq!(f.probe, Some(ProbePolicy::None));
    assert_eq!(w.tools["alerts"].probe, Some(ProbePolicy::ReadOnly));
    assert_eq!(w.tools["alerts"].args, None);

    let l = stdio(&c, "local");
    assert_eq!(l.command, fixtures().join("toml/bin/server").to_string_lossy());
    assert_eq!(l.command_template, "./bin/server");
    assert_eq!(c.servers["local"].timeout, config::DEFAULT_TIMEOUT);
    assert_eq!(c.servers["local"].probe, ProbePolicy::Sandbox);
    assert!(c.servers["local"].client_capabilities.is_empty());

    let r = http(&c, "remote");
    assert_eq!(r.url, format!("https://mcp.example.com/mcp?token={CANARY}"));
    assert_eq!(r.url_template, "https://mcp.example.com/mcp?token=${URL_TOKEN}");
    assert_eq!(r.headers["Authorization"], format!("Bearer {CANARY}"));
    assert_eq!(c.servers["remote"].timeout, Duration::from_secs(120));
    assert!(c.servers["remote"].secrets().iter().any(|s| s.contains(CANARY)));
}

#[test]
fn toml_relative_paths_resolve_against_config_folder() {
    let c = load_toml(
        "[servers.a]\ncommand = \"../tools/srv\"\ncwd = \"./sub/../work\"\n[servers.b]\ncommand = \"/usr/bin/env\"\ncwd = \"/tmp\"\n",
    )
    .unwrap();
    let a = stdio(&c, "a");
    assert!(Path::new(&a.command).is_absolute());
    assert!(a.command.ends_with("/tools/srv"), "{}", a.command);
    assert!(!a.command.contains(".."), "{}", a.command);
    assert_eq!(a.cwd.unwrap(), c.dir.join("work"));
    let b = stdio(&c, "b");
    assert_eq!(b.command, "/usr/bin/env");
    assert_eq!(b.cwd.as_deref(), Some(Path::new("/tmp")));
}

#[test]
fn toml_expansion_everywhere() {
    let c = load_toml(
        r#"
[servers.a]
command = "${HOME_FOR_TEST}/bin/srv"
args = ["--k=${WEATHER_KEY}", "$${literal}", "${NOPE:-fallback}", "${EMPTY:-e}", "x${EMPTY}y"]
env = { K = "${WEATHER_KEY}" }
cwd = "${HOME_FOR_TEST}"
[servers.b]
url = "https://${NOPE:-h.example}/mcp"
headers = { "X-Key" = "${MCP_TOKEN}" }
"#,
    )
    .unwrap();
    let a = stdio(&c, "a");
    assert_eq!(a.command, "/home/tester/bin/srv");
    assert_eq!(a.args, [format!("--k={CANARY}"), "${literal}".into(), "fallback".into(), "e".into(), "xy".into()]);
    assert_eq!(a.cwd.as_deref(), Some(Path::new("/home/tester")));
    assert_eq!(http(&c, "b").url, "https://h.example/mcp");
    assert_eq!(http(&c, "b").headers["X-Key"], CANARY);
}

#[test]
fn toml_missing_var_names_server_file_and_variable() {
    let e = load_toml("[servers.weather]\ncommand = \"node\"\nenv = { KEY = \"${NOT_SET_ANYWHERE}\" }\n").unwrap_err();
    match &e {
        ConfigError::MissingVar { path, server, var } => {
            assert!(path.ends_with("mcp-pin.toml"));
            assert_eq!(server, "weather");
            assert_eq!(var, "NOT_SET_ANYWHERE");
        }
        other => panic!("{other:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("mcp-pin.toml") && msg.contains("weather") && msg.contains("NOT_SET_ANYWHERE"), "{msg}");
    for (field, text) in [
        ("header", "[servers.r]\nurl = \"https://x/mcp\"\nheaders = { A = \"${NOT_SET_H}\" }\n"),
        ("url", "[servers.r]\nurl = \"https://x/${NOT_SET_H}\"\n"),
        ("args", "[servers.r]\ncommand = \"x\"\nargs = [\"${NOT_SET_H}\"]\n"),
        ("cwd", "[servers.r]\ncommand = \"x\"\ncwd = \"${NOT_SET_H}\"\n"),
        ("command", "[servers.r]\ncommand = \"${NOT_SET_H}\"\n"),
    ] {
        assert!(
            matches!(load_toml(text), Err(ConfigError::MissingVar { ref var, .. }) if var == "NOT_SET_H"),
            "{field}"
        );
    }
}

#[test]
fn toml_load_uses_process_environment() {
    // Unique name: tests run in parallel threads of one process.
    std::env::set_var("MCP_PIN_CONFIG_TEST_PROCESS_ENV", "from-process");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-pin.toml");
    std::fs::write(&path, "[servers.a]\ncommand = \"x\"\nargs = [\"${MCP_PIN_CONFIG_TEST_PROCESS_ENV}\"]\n").unwrap();
    let c = Config::load(&path).unwrap();
    assert_eq!(stdio(&c, "a").args, ["from-process"]);
}

#[test]
fn toml_template_mode_never_fails_on_missing_vars() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-pin.toml");
    std::fs::write(&path, "[servers.a]\ncommand = \"x\"\nenv = { K = \"${NOT_SET_T}\" }\n").unwrap();
    let l = Config::load_unresolved(&path).unwrap();
    assert_eq!(stdio(&l.config, "a").env["K"], "${NOT_SET_T}");
}

#[test]
fn io_error_names_the_file() {
    let e = Config::load(Path::new("/nonexistent/dir/mcp-pin.toml")).unwrap_err();
    assert!(matches!(e, ConfigError::Io { .. }));
    assert!(e.to_string().contains("/nonexistent/dir/mcp-pin.toml"));
}

// ---------------------------------------------------------------- mcp-pin.toml: errors with lines

#[test]
fn err_toml_syntax() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\nargs = [\"a\",\n\n[servers.b\n");
    assert!(line >= 3, "{msg}");
    assert!(msg.contains("invalid TOML"), "{msg}");
}

#[test]
fn err_unknown_top_level_key_with_hint() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\n[rule]\ndescription-changed = \"loud\"\n");
    assert_eq!(line, 4, "{msg}");
    assert!(msg.contains("unknown key `rule`") && msg.contains("did you mean `rules`?"), "{msg}");
    let (line, msg) = err_line("[server.a]\ncommand = \"x\"\n");
    assert_eq!(line, 1, "{msg}");
    assert!(msg.contains("did you mean `servers`?"), "{msg}");
}

#[test]
fn err_unknown_server_key_with_hint() {
    let (line, msg) = err_line("[servers.weather]\ncommand = \"node\"\narg = [\"x\"]\n");
    assert_eq!(line, 3);
    assert!(msg.contains("unknown key `arg` in [servers.weather]; did you mean `args`?"), "{msg}");
    assert!(msg.contains(":3:1:"), "column: {msg}");
    let (line, msg) = err_line("[servers.weather]\ncommand = \"node\"\n\nclient_capability = [\"roots\"]\n");
    assert_eq!(line, 4);
    assert!(msg.contains("did you mean `client_capabilities`?"), "{msg}");
    let (line, msg) = err_line("[servers.weather]\ncommand = \"node\"\nenv = {}\nzzzzzz = 1\n");
    assert_eq!(line, 4);
    assert!(msg.contains("expected one of: command, args"), "no near miss lists the keys: {msg}");
    // Inline-table key, with a column.
    let (line, msg) = err_line("[servers]\nweather = { command = \"node\", timout = \"3s\" }\n");
    assert_eq!(line, 2);
    assert!(msg.contains(":2:31:") && msg.contains("did you mean `timeout`?"), "{msg}");
}

#[test]
fn err_type_key_explained() {
    let (line, msg) = err_line("[servers.a]\ntype = \"http\"\nurl = \"https://x/mcp\"\n");
    assert_eq!(line, 2);
    assert!(msg.contains("`url` a Streamable HTTP server"), "{msg}");
}

#[test]
fn err_unknown_tool_key_with_hint() {
    let (line, msg) =
        err_line("[servers.w]\ncommand = \"n\"\n\n[servers.w.tools.forecast]\nargz = { city = \"Oslo\" }\n");
    assert_eq!(line, 5);
    assert!(msg.contains("[servers.w.tools.forecast]") && msg.contains("did you mean `args`?"), "{msg}");
}

#[test]
fn err_command_and_url_both_or_neither() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\nurl = \"https://x/mcp\"\n");
    assert_eq!(line, 3);
    assert!(msg.contains("both `command`") && msg.contains("`a`"), "{msg}");
    let (line, msg) = err_line("# c\n\n[servers.a]\ntimeout = \"3s\"\n");
    assert_eq!(line, 3, "{msg}");
    assert!(msg.contains("needs `command`") && msg.contains("`url`"), "{msg}");
}

#[test]
fn err_transport_specific_keys() {
    let (line, msg) = err_line("[servers.a]\nurl = \"https://x/mcp\"\nenv = { A = \"b\" }\n");
    assert_eq!(line, 3);
    assert!(msg.contains("`env` is for stdio servers") && msg.contains("headers"), "{msg}");
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\nheaders = { A = \"b\" }\n");
    assert_eq!(line, 3);
    assert!(msg.contains("`headers` is for HTTP servers"), "{msg}");
}

#[test]
fn err_bad_timeout() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\ntimeout = \"30\"\n");
    assert_eq!(line, 3);
    assert!(msg.contains("invalid `timeout` \"30\"") && msg.contains("\"30s\""), "{msg}");
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\ntimeout = 30\n");
    assert_eq!(line, 4);
    assert!(msg.contains("\"30s\""), "{msg}");
    let (_, msg) = err_line("[servers.a]\ncommand = \"x\"\ntimeout = \"3 weeks\"\n");
    assert!(msg.contains("unit"), "{msg}");
}

#[test]
fn err_bad_probe() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\nprobe = \"readonly\"\n");
    assert_eq!(line, 3);
    assert!(
        msg.contains(
            "invalid `probe` \"readonly\": expected \"sandbox\", \"read-only\", \"all\" or \"none\"; did you mean `read-only`?"
        ),
        "{msg}"
    );
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n[servers.a.tools.t]\nprobe = \"sometimes\"\n");
    assert_eq!(line, 4);
    assert!(msg.contains("tool `t`") && msg.contains("\"read-only\", \"all\" or \"none\""), "{msg}");
}

#[test]
fn err_bad_client_capability() {
    let (line, msg) =
        err_line("[servers.a]\ncommand = \"x\"\nclient_capabilities = [\n  \"roots\",\n  \"sampeling\",\n]\n");
    assert_eq!(line, 5);
    assert!(msg.contains("unknown client capability `sampeling`: expected one of: elicitation, roots, sampling; did you mean `sampling`?"), "{msg}");
}

#[test]
fn err_bad_server_name() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n[servers.\"my server\"]\ncommand = \"x\"\n");
    assert_eq!(line, 3);
    assert!(msg.contains("invalid server name `my server`"), "{msg}");
}

#[test]
fn err_no_servers() {
    let e = load_toml("# nothing\n").unwrap_err();
    assert!(e.to_string().contains("no servers"), "{e}");
    let (_, msg) = err_line("[servers]\n");
    assert!(msg.contains("empty"), "{msg}");
}

#[test]
fn err_wrong_types() {
    let (line, msg) = err_line("[servers.a]\ncommand = [\"x\"]\n");
    assert_eq!(line, 2);
    assert!(msg.contains("`command` must be a string, found an array"), "{msg}");
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\nargs = [\"a\", 3]\n");
    assert_eq!(line, 3);
    assert!(msg.contains("array of strings"), "{msg}");
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\nenv = { A = 1 }\n");
    assert_eq!(line, 3);
    assert!(msg.contains("`env.A` must be a string"), "{msg}");
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n[servers.a.tools.t]\nargs = \"city=Oslo\"\n");
    assert_eq!(line, 4);
    assert!(msg.contains("must be a table"), "{msg}");
    let (line, msg) = err_line("[servers.a]\nurl = \"ftp://x/mcp\"\n");
    assert_eq!(line, 2);
    assert!(msg.contains("scheme"), "{msg}");
}

#[test]
fn err_bad_variable_syntax() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\nargs = [\"${UNCLOSED\"]\n");
    assert_eq!(line, 3);
    assert!(msg.contains("unterminated") && msg.contains("`$$`"), "{msg}");
}

#[test]
fn err_unknown_rule_id_in_rules_and_ignore() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\n[rules]\nno-such-rule = \"loud\"\n");
    assert_eq!(line, 5);
    assert!(msg.contains("unknown rule id `no-such-rule`"), "{msg}");
    let (line, msg) =
        err_line("[servers.a]\ncommand = \"x\"\n\n[[ignore]]\nrule = \"no-such-rule\"\nreason = \"because\"\n");
    assert_eq!(line, 5);
    assert!(msg.contains("unknown rule id `no-such-rule`"), "{msg}");
}

#[test]
fn err_ignore_needs_rule() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\n[[ignore]]\nreason = \"r\"\n");
    assert_eq!(line, 4, "{msg}");
    assert!(msg.contains("needs `rule`"), "{msg}");
}

#[test]
fn err_ignore_unknown_key() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\n[[ignore]]\nrule = \"x\"\nreasn = \"r\"\n");
    assert_eq!(line, 6);
    assert!(msg.contains("[[ignore]]") && msg.contains("did you mean `reason`?"), "{msg}");
}

#[test]
fn err_ignore_single_brackets() {
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\n[ignore]\nrule = \"x\"\n");
    assert_eq!(line, 4);
    assert!(msg.contains("[[ignore]]"), "{msg}");
}

// Tests below need real rule ids: they check fully once `crate::rules::RULES` is filled in.

#[test]
fn known_rules_and_ignores_load() {
    if !rules_table_ready() {
        return;
    }
    let c = load_toml(
        r#"
[servers.weather]
command = "node"

[rules]
description-changed = "loud"
tool-added = "cosmetic"

[[ignore]]
rule = "schema-description-changed"
server = "weather"
tool = "forecast"
pointer = "/inputSchema/properties/city"
reason = "upstream rewrites descriptions weekly"
until = "2027-01-31"

[[ignore]]
rule = "tool-added"
reason = "we add tools all the time"
until = 2027-02-28
"#,
    )
    .unwrap();
    use mcp_pin::rules::Class;
    assert_eq!(c.rules[&mcp_pin::rules::RuleId::DescriptionChanged], Class::Loud);
    assert_eq!(c.rules[&mcp_pin::rules::RuleId::ToolAdded], Class::Cosmetic);
    assert_eq!(c.ignores.len(), 2);
    let i = &c.ignores[0];
    assert_eq!(i.rule, "schema-description-changed");
    assert_eq!(i.server.as_deref(), Some("weather"));
    assert_eq!(i.tool.as_deref(), Some("forecast"));
    assert_eq!(i.pointer.as_deref(), Some("/inputSchema/properties/city"));
    assert_eq!(i.until.as_deref(), Some("2027-01-31"));
    assert!(i.matches(
        mcp_pin::rules::RuleId::SchemaDescriptionChanged,
        "weather",
        Some("forecast"),
        "/inputSchema/properties/city/description",
        "2027-01-31"
    ));
    assert!(!i.matches(
        mcp_pin::rules::RuleId::SchemaDescriptionChanged,
        "weather",
        Some("forecast"),
        "/inputSchema/properties/cityx",
        "2026-01-01"
    ));
    assert!(!i.matches(
        mcp_pin::rules::RuleId::SchemaDescriptionChanged,
        "weather",
        Some("forecast"),
        "/inputSchema/properties/city",
        "2027-02-01"
    ));
    assert!(i.expired("2027-02-01") && !i.expired("2027-01-31"));
    assert_eq!(c.ignores[1].until.as_deref(), Some("2027-02-28"));
    assert!(c.ignores[1].matches(mcp_pin::rules::RuleId::ToolAdded, "any", None, "", "2020-01-01"));
}

#[test]
fn err_bad_class_in_rules() {
    if !rules_table_ready() {
        return;
    }
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\n[rules]\ndescription-changed = \"laud\"\n");
    assert_eq!(line, 5);
    assert!(
        msg.contains("invalid class \"laud\": expected \"silent\", \"loud\" or \"cosmetic\"; did you mean `loud`?"),
        "{msg}"
    );
}

#[test]
fn err_rule_id_near_miss_hint() {
    if !rules_table_ready() {
        return;
    }
    let (_, msg) = err_line("[servers.a]\ncommand = \"x\"\n[rules]\ndescription-change = \"loud\"\n");
    assert!(msg.contains("did you mean `description-changed`?"), "{msg}");
}

#[test]
fn err_ignore_reason_missing_or_empty() {
    if !rules_table_ready() {
        return;
    }
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\n[[ignore]]\nrule = \"tool-added\"\n");
    assert_eq!(line, 4, "{msg}");
    assert!(msg.contains("needs `reason`"), "{msg}");
    let (line, msg) = err_line("[servers.a]\ncommand = \"x\"\n\n[[ignore]]\nrule = \"tool-added\"\nreason = \"  \"\n");
    assert_eq!(line, 6);
    assert!(msg.contains("`reason` is empty"), "{msg}");
}

#[test]
fn err_ignore_bad_until_server_pointer() {
    if !rules_table_ready() {
        return;
    }
    let base = "[servers.weather]\ncommand = \"x\"\n\n[[ignore]]\nrule = \"tool-added\"\nreason = \"r\"\n";
    let (line, msg) = err_line(&format!("{base}until = \"2027-02-30\"\n"));
    assert_eq!(line, 7);
    assert!(msg.contains("`until` \"2027-02-30\" is not a valid date") && msg.contains("YYYY-MM-DD"), "{msg}");
    let (line, msg) = err_line(&format!("{base}until = \"31/01/2027\"\n"));
    assert_eq!(line, 7);
    assert!(msg.contains("not a valid date"), "{msg}");
    let (line, msg) = err_line(&format!("{base}server = \"waether\"\n"));
    assert_eq!(line, 7);
    assert!(msg.contains("not in `[servers]`; did you mean `weather`?"), "{msg}");
    let (line, msg) = err_line(&format!("{base}pointer = \"inputSchema/x\"\n"));
    assert_eq!(line, 7);
    assert!(msg.contains("JSON pointer"), "{msg}");
}

// ---------------------------------------------------------------- secrets

fn assert_no_canary(s: &str) {
    assert!(!s.contains(CANARY), "canary secret leaked: {s}");
    assert!(!s.contains("CANARY-7f3a"), "canary secret leaked: {s}");
}

#[test]
fn canary_secret_never_in_debug() {
    let c = load_file(&fixtures().join("toml/mcp-pin.toml")).unwrap().config;
    assert_no_canary(&format!("{c:?}"));
    assert_no_canary(&format!("{c:#?}"));
    for f in ["claude-code/.mcp.json", "vscode/.vscode/mcp.json", "cursor/.cursor/mcp.json"] {
        let l = load_file(&fixtures().join(f)).unwrap();
        assert_no_canary(&format!("{l:?}"));
    }
    // Literal secrets written in the file itself.
    let c = load_toml(&format!(
        "[servers.a]\ncommand = \"x\"\nenv = {{ K = \"{CANARY}\" }}\n[servers.b]\nurl = \"https://u:{CANARY}@h/mcp?t={CANARY}\"\nheaders = {{ A = \"{CANARY}\" }}\n"
    ))
    .unwrap();
    assert_no_canary(&format!("{c:?}"));
    let desktop = load_file(&fixtures().join("claude-desktop/claude_desktop_config.json")).unwrap();
    let debug = format!("{desktop:?}");
    assert!(!debug.contains("BSAcanary"), "{debug}");
}

#[test]
fn canary_secret_never_in_errors() {
    let bad = [
        // Errors after a secret was resolved or written.
        "[servers.a]\ncommand = \"x\"\nenv = { K = \"${WEATHER_KEY}\", B = 5 }\n".to_string(),
        format!("[servers.a]\ncommand = \"x\"\nenv = {{ K = \"{CANARY}${{\" }}\n"),
        format!("[servers.a]\nurl = \"https://h/mcp\"\nheaders = {{ A = \"{CANARY}${{bad name}}\" }}\n"),
        format!("[servers.a]\nurl = \"ftp://h/mcp?token={CANARY}\"\n"),
        "[servers.a]\nurl = \"ftp://h/${URL_TOKEN}\"\n".to_string(),
        format!("[servers.a]\nurl = \"https://h/mcp\"\nheaders = {{ A = \"{CANARY}\", \"B C\" = \"x\" }}\n"),
        format!("[servers.a]\ncommand = \"x\"\nenv = {{ K = \"{CANARY}\" }}\nbogus = 1\n"),
        format!("[servers.a]\ncommand = \"x\"\nenv = {{ K = \"{CANARY}\" }}\ntimeout = \"x\"\n"),
        format!("[servers.a]\ncommand = \"x\"\nenv = {{ K = \"{CANARY}\" }}\n[servers.a.tools.t]\nargs = 1\n"),
        format!("[servers.a]\ncommand = \"x\"\nenv = {{ K = \"{CANARY}\" }}\n[[ignore]]\nrule = \"x\"\n"),
        format!("[servers.a]\ncommand = \"x\"\nenv = {{ K = \"{CANARY}\", K = \"again\" }}\n"),
        format!("[servers.a]\ncommand = \"x\"\nenv = {{ K = \"{CANARY}\n"),
    ];
    for text in &bad {
        let e = load_toml(text).expect_err(text);
        assert_no_canary(&e.to_string());
        assert_no_canary(&format!("{e:?}"));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".mcp.json");
    for text in [
        format!(r#"{{"mcpServers": {{"a": {{"command": "x", "env": {{"K": "{CANARY}", "B": [1]}}}}}}}}"#),
        format!(r#"{{"mcpServers": {{"a": {{"type": "sse", "url": "https://h/?t={CANARY}"}}}}}}"#),
        format!(r#"{{"mcpServers": {{"a": {{"url": "ftp://h/?t={CANARY}"}}}}}}"#),
        format!(r#"{{"mcpServers": {{"a": {{"url": "https://h/", "headers": {{"A": "{CANARY}${{config:x}}"}}}}}}}}"#),
        format!(r#"{{"mcpServers": {{"a": {{"command": "x", "env": {{"K": "{CANARY}"}}}}, }}"#),
    ] {
        std::fs::write(&path, &text).unwrap();
        let e = load_file(&path).expect_err(&text);
        assert_no_canary(&e.to_string());
        assert_no_canary(&format!("{e:?}"));
    }
}

// ---------------------------------------------------------------- client configs

#[test]
fn claude_code_mcp_json() {
    let path = fixtures().join("claude-code/.mcp.json");
    let l = load_file(&path).unwrap();
    assert_eq!(l.format, Format::McpServers);
    assert!(l.source.contains("Claude Code"), "{}", l.source);
    let c = &l.config;
    assert_eq!(c.dir, fixtures().join("claude-code"));
    assert_eq!(c.servers.keys().collect::<Vec<_>>(), ["filesystem", "github", "weather"]);
    let fs = stdio(c, "filesystem");
    assert_eq!(fs.command, "npx");
    assert_eq!(fs.args, ["-y", "@modelcontextprotocol/server-filesystem", "."]);
    assert_eq!(fs.args_template[2], "${PROJECT_ROOT:-.}");
    let w = stdio(c, "weather");
    assert_eq!(w.command, fixtures().join("claude-code/bin/weather-server").to_string_lossy());
    assert_eq!(w.env["WEATHER_API_KEY"], CANARY);
    let g = http(c, "github");
    assert_eq!(g.url, "https://api.githubcopilot.com/mcp/");
    assert_eq!(g.headers["Authorization"], format!("Bearer {CANARY}"));
    assert_eq!(c.servers["github"].probe, ProbePolicy::Sandbox, "defaults apply");
    assert_eq!(c.servers["github"].timeout, config::DEFAULT_TIMEOUT);
    assert!(c.rules.is_empty() && c.ignores.is_empty());
}

#[test]
fn claude_desktop_config() {
    let l = load_file(&fixtures().join("claude-desktop/claude_desktop_config.json")).unwrap();
    assert_eq!(l.format, Format::McpServers);
    assert!(l.source.contains("Claude Desktop"), "{}", l.source);
    assert_eq!(l.config.servers.keys().collect::<Vec<_>>(), ["brave-search", "sqlite"]);
    assert!(l.warnings.iter().any(|w| w.contains("`old` is disabled")), "{:?}", l.warnings);
    assert_eq!(stdio(&l.config, "sqlite").args, ["mcp-server-sqlite", "--db-path", "/Users/alice/test.db"]);
}

#[test]
fn vscode_mcp_json() {
    let path = fixtures().join("vscode/.vscode/mcp.json");
    let l = load_file(&path).unwrap();
    assert_eq!(l.format, Format::VsCode);
    let c = &l.config;
    let ws = fixtures().join("vscode");
    assert_eq!(c.dir, ws, "workspaceFolder is the folder holding .vscode");
    let p = stdio(c, "perplexity");
    assert_eq!(p.env["PERPLEXITY_API_KEY"], CANARY, "from MCP_PIN_INPUT_PERPLEXITY_KEY");
    let local = stdio(c, "local");
    assert_eq!(local.command, ws.join("tools/server.py").to_string_lossy());
    assert_eq!(local.command_template, "./tools/server.py");
    assert_eq!(local.args, ["--root".to_string(), ws.to_string_lossy().into_owned()]);
    assert_eq!(local.env["HOME_DIR"], "/home/tester");
    assert_eq!(local.env["LOG_LEVEL"], "debug");
    assert_eq!(local.env["EXTRA_SECRET"], CANARY, "read from envFile");
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
    let r = http(c, "remote");
    assert_eq!(r.url, "https://mcp.example.com/mcp");
    assert_eq!(r.headers["Authorization"], format!("Bearer {CANARY}"));
}

#[test]
fn vscode_input_missing_is_explained() {
    let path = fixtures().join("vscode/.vscode/mcp.json");
    let no_input = |n: &str| {
        if n == "MCP_PIN_INPUT_PERPLEXITY_KEY" {
            None
        } else {
            env(n)
        }
    };
    let e = Config::load_with(&path, Some(&no_input)).unwrap_err();
    assert!(
        matches!(&e, ConfigError::MissingInput { server, var, .. } if server == "perplexity" && var == "MCP_PIN_INPUT_PERPLEXITY_KEY")
    );
    let msg = e.to_string();
    assert!(
        msg.contains("prompted by VS Code")
            && msg.contains("MCP_PIN_INPUT_PERPLEXITY_KEY")
            && msg.contains("mcp-pin.toml"),
        "{msg}"
    );
}

#[test]
fn vscode_env_file_missing_is_an_error() {
    let e = load_json("mcp.json", r#"{"servers": {"a": {"command": "x", "envFile": "${workspaceFolder}/nope.env"}}}"#)
        .unwrap_err();
    assert!(e.to_string().contains("cannot read `envFile`"), "{e}");
}

#[test]
fn cursor_mcp_json() {
    let l = load_file(&fixtures().join("cursor/.cursor/mcp.json")).unwrap();
    assert_eq!(l.format, Format::McpServers);
    assert!(l.source.contains("Cursor"), "{}", l.source);
    let ws = fixtures().join("cursor");
    assert_eq!(l.config.dir, ws);
    let linear = http(&l.config, "linear");
    assert_eq!(linear.url, "https://mcp.linear.app/mcp", "url without type is Streamable HTTP");
    assert_eq!(linear.headers["Authorization"], format!("Bearer {CANARY}"));
    let docs = stdio(&l.config, "docs");
    assert_eq!(docs.args, [ws.join("scripts/docs_server.py").to_string_lossy().into_owned()]);
    assert_eq!(docs.env["DOCS_DIR"], ws.join("docs").to_string_lossy());
}

fn load_json(name: &str, text: &str) -> Result<Loaded, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    load_file(&path)
}

#[test]
fn client_sse_servers_are_skipped_with_a_warning() {
    // One server mcp-pin does not speak to does not make the file unreadable.
    let l = load_json(
        ".mcp.json",
        r#"{"mcpServers": {"old": {"type": "sse", "url": "https://x/sse"}, "ok": {"command": "x"}}}"#,
    )
    .unwrap();
    assert_eq!(l.config.servers.keys().collect::<Vec<_>>(), ["ok"]);
    assert!(
        l.warnings.iter().any(|w| w.contains("`old` is skipped") && w.contains("Streamable HTTP only")),
        "{:?}",
        l.warnings
    );
    assert_eq!(l.skipped.len(), 1);
    // A file of nothing else says why there is nothing to check.
    let e = load_json(".mcp.json", r#"{"mcpServers": {"old": {"type": "sse", "url": "https://x/sse"}}}"#).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("Streamable HTTP only") && msg.contains("`old`") && msg.contains(".mcp.json"), "{msg}");
    let e = load_json("mcp.json", r#"{"servers": {"old": {"type": "sse", "url": "https://x/sse"}}}"#).unwrap_err();
    assert!(e.to_string().contains("Streamable HTTP only"));
}

#[test]
fn client_errors() {
    let cases = [
        (r#"{"mcpServers": {"a": {"command": "x", "url": "https://x"}}}"#, "both `command` and `url`"),
        (r#"{"mcpServers": {"a": {"args": []}}}"#, "needs `command`"),
        (r#"{"mcpServers": {"a": {"type": "websocket", "url": "wss://x"}}}"#, "unknown `type`"),
        (r#"{"mcpServers": {"a": {"command": "x", "args": "y"}}}"#, "array of strings"),
        (r#"{"mcpServers": {"a b": {"command": "x"}}}"#, "invalid server name"),
        (r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "${NOT_SET_J}"}}}}"#, "NOT_SET_J"),
        (r#"{"mcpServers": {}}"#, "no servers"),
        (r#"{"other": 1}"#, "no server table of a client config"),
        (r#"{"servers": {"a": {"command": "${command:pick}"}}}"#, "editor"),
    ];
    for (text, want) in cases {
        let e = load_json(".mcp.json", text).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(want) && msg.contains(".mcp.json"), "{text}: {msg}");
    }
    // Errors about one server point at its entry.
    let e = load_json(
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"ok\": {\"command\": \"x\"},\n    \"bad\": {\"type\": \"websocket\", \"url\": \"wss://x\"}\n  }\n}\n",
    )
    .unwrap_err();
    assert_eq!(e.line(), Some(4), "{e}");
    assert!(e.to_string().contains(".mcp.json:4:5:"), "{e}");
}

#[test]
fn client_json_syntax_error_has_line() {
    let e = load_json(".mcp.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n  }\n").unwrap_err();
    assert!(e.line().is_some(), "{e}");
    assert!(e.to_string().contains("invalid JSON"), "{e}");
}

#[test]
fn client_unknown_keys_warn_not_fail() {
    let l =
        load_json(".mcp.json", r#"{"mcpServers": {"a": {"command": "x", "autoApprove": ["t"], "fancy": 1}}}"#).unwrap();
    assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
}

#[test]
fn vscode_settings_json_form() {
    let l =
        load_json("settings.json", r#"{"editor.fontSize": 12, "mcp": {"servers": {"a": {"command": "x"}}}}"#).unwrap();
    assert_eq!(l.format, Format::VsCode);
    assert!(l.config.servers.contains_key("a"));
}

#[test]
fn detection_is_by_content_not_name() {
    // A JSON file called mcp-pin.toml and a TOML file called .mcp.json.
    let l = load_json("mcp-pin.toml", r#"{"mcpServers": {"a": {"command": "x"}}}"#).unwrap();
    assert_eq!(l.format, Format::McpServers);
    let l = load_json(".mcp.json", "[servers.a]\ncommand = \"x\"\n").unwrap();
    assert_eq!(l.format, Format::McpPin);
}

#[test]
fn discover_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(config::discover(d), None);
    std::fs::create_dir_all(d.join(".cursor")).unwrap();
    std::fs::write(d.join(".cursor/mcp.json"), "{}").unwrap();
    assert_eq!(config::discover(d), Some(d.join(".cursor/mcp.json")));
    std::fs::create_dir_all(d.join(".vscode")).unwrap();
    std::fs::write(d.join(".vscode/mcp.json"), "{}").unwrap();
    assert_eq!(config::discover(d), Some(d.join(".vscode/mcp.json")));
    std::fs::write(d.join(".mcp.json"), "{}").unwrap();
    assert_eq!(config::discover(d), Some(d.join(".mcp.json")));
    std::fs::write(d.join("mcp-pin.toml"), "").unwrap();
    assert_eq!(config::discover(d), Some(d.join("mcp-pin.toml")));
}

// ---------------------------------------------------------------- init

#[test]
fn init_from_client_configs_round_trips() {
    for f in [
        "claude-code/.mcp.json",
        "claude-desktop/claude_desktop_config.json",
        "vscode/.vscode/mcp.json",
        "cursor/.cursor/mcp.json",
    ] {
        let src = fixtures().join(f);
        // Both from a template-mode load (what `mcp-pin init` does) and a resolved one.
        for loaded in [Config::load_unresolved(&src).unwrap(), load_file(&src).unwrap()] {
            let text = config::init_toml(&loaded.config, &src);
            assert_no_canary(&text);
            assert!(!text.contains("BSAcanary"), "{f}: literal secret copied:\n{text}");
            assert!(text.contains("probe"), "{f}: commented probe example");
            assert!(text.contains("[[ignore]]") && text.contains("[rules]"), "{f}");
            // The result is a valid mcp-pin.toml with the same servers.
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("mcp-pin.toml");
            std::fs::write(&out, &text).unwrap();
            let back = Config::load_unresolved(&out).unwrap_or_else(|e| panic!("{f}: {e}\n{text}"));
            assert_eq!(back.format, Format::McpPin);
            assert_eq!(
                back.config.servers.keys().collect::<Vec<_>>(),
                loaded.config.servers.keys().collect::<Vec<_>>(),
                "{f}"
            );
        }
    }
}

#[test]
fn init_turns_secrets_into_references() {
    let src = fixtures().join("claude-desktop/claude_desktop_config.json");
    let l = Config::load_unresolved(&src).unwrap();
    let text = config::init_toml(&l.config, &src);
    assert!(text.contains("BRAVE_API_KEY = \"${BRAVE_API_KEY}\""), "{text}");
    let src = fixtures().join("vscode/.vscode/mcp.json");
    let l = Config::load_unresolved(&src).unwrap();
    let text = config::init::init_toml_from(&l, &src);
    assert!(text.contains("${MCP_PIN_INPUT_PERPLEXITY_KEY}"), "{text}");
    assert!(text.contains("Bearer ${MCP_TOKEN}"), "{text}");
    assert!(text.contains("LOG_LEVEL = \"debug\""), "non-secrets are kept, env wins over envFile: {text}");
    // envFile stays a file mcp-pin reads (its values are not in the environment to be referred to).
    assert!(text.contains("env_file = \"./.env\""), "envFile kept as env_file: {text}");
    assert!(!text.contains("EXTRA_SECRET"), "envFile entries are not turned into references: {text}");
    assert!(text.contains("vscode/.vscode/mcp.json") || text.contains(".vscode/mcp.json"), "names the source");
}

#[test]
fn oauth_client_credentials_config() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-pin.toml");
    let env = |name: &str| match name {
        "CID" => Some("client-1234".to_string()),
        "CSECRET" => Some("s3cret-value".to_string()),
        _ => None,
    };
    let text = "[servers.r]\nurl = \"https://mcp.example.com/mcp\"\noauth = { client_id = \"${CID}\", client_secret = \"${CSECRET}\", issuer = \"https://auth.example.com\", scope = \"tools:read\" }\n";
    let loaded = mcp_pin::config::Config::parse_with(text, &path, Some(&env)).unwrap();
    let mcp_pin::config::Transport::Http(h) = &loaded.config.servers["r"].transport else { panic!("http") };
    let o = h.oauth.as_ref().unwrap();
    assert_eq!((o.client_id.as_str(), o.client_secret.as_str()), ("client-1234", "s3cret-value"));
    assert_eq!(o.issuer.as_deref(), Some("https://auth.example.com"));
    assert!(!o.trust_discovered_issuer);
    assert!(!format!("{h:?}").contains("s3cret"));
    // A missing secret, an unknown key and a plain-http issuer are errors naming the place.
    for (bad, want) in [
        ("oauth = { client_id = \"x\" }", "client_secret"),
        ("oauth = { client_id = \"x\", client_secret = \"yyyy\", audience = \"a\" }", "audience"),
        ("oauth = { client_id = \"x\", client_secret = \"yyyy\", issuer = \"http://auth.example.com\" }", "https"),
    ] {
        let text = format!("[servers.r]\nurl = \"https://mcp.example.com/mcp\"\n{bad}\n");
        let e = mcp_pin::config::Config::parse_with(&text, &path, Some(&env)).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("mcp-pin.toml"), "{e}");
    }
}

/// Both front ends feed one builder (`config/build.rs`): the same mistake in `mcp-pin.toml` and in
/// a client config is refused with the same words, each naming the server and the file.
#[test]
fn both_front_ends_refuse_the_same_mistakes_in_the_same_words() {
    let cases: &[(&str, &str, &str)] = &[
        (r#"command = "  ""#, r#""command": "  ""#, "server `s`: `command` is empty"),
        (
            r#"command = "x"
env = { "A=B" = "1" }"#,
            r#""command": "x", "env": {"A=B": "1"}"#,
            "server `s`: invalid environment variable name `A=B`",
        ),
        (
            r#"url = "https://example.com/mcp"
headers = { "Bad Header" = "v" }"#,
            r#""url": "https://example.com/mcp", "headers": {"Bad Header": "v"}"#,
            "server `s`: invalid HTTP header name `Bad Header`",
        ),
        (
            r#"url = "https://example.com/mcp"
headers = { X-Token = "a\nb" }"#,
            r#""url": "https://example.com/mcp", "headers": {"X-Token": "a\nb"}"#,
            "server `s`: header `X-Token`: the value (after expansion) contains a line break",
        ),
        (
            r#"url = "ftp://example.com/mcp""#,
            r#""url": "ftp://example.com/mcp""#,
            "server `s`: `url` ftp://example.com/mcp:",
        ),
        (
            r#"command = "x"
env = { K = "${NOT_SET_ANYWHERE}" }"#,
            r#""command": "x", "env": {"K": "${NOT_SET_ANYWHERE}"}"#,
            "NOT_SET_ANYWHERE",
        ),
    ];
    for (toml, json, want) in cases {
        let t = load_toml(&format!("[servers.s]\n{toml}\n")).expect_err(toml).to_string();
        let j =
            load_json(".mcp.json", &format!(r#"{{"mcpServers": {{"s": {{{json}}}}}}}"#)).expect_err(json).to_string();
        for (front, msg, file) in [("toml", &t, "mcp-pin.toml"), ("json", &j, ".mcp.json")] {
            assert!(msg.contains(want), "{front}: want {want:?} in {msg}");
            assert!(msg.contains(file) && msg.contains('s'), "{front}: names the file and server: {msg}");
        }
    }
}

/// A JSON file of no known client format names the file and every format mcp-pin reads.
#[test]
fn a_json_file_of_no_known_format_names_the_formats_read() {
    let e = load_json("servers.json", r#"{"context_servers": {"s": {"command": "x"}}}"#).unwrap_err().to_string();
    assert!(e.contains("servers.json"), "{e}");
    assert!(e.contains("`mcpServers` (Claude Code .mcp.json") && e.contains("`servers` (VS Code"), "{e}");
    assert!(e.contains("is it an MCP client config?"), "{e}");
}

#[test]
fn oauth_grant_and_dpop_config() {
    use mcp_pin::config::Grant;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-pin.toml");
    let env = |name: &str| match name {
        "OIDC" => Some("eyJ.workload-jwt.sig".to_string()),
        "IDT" => Some("eyJ.id-token.sig".to_string()),
        "CSECRET" => Some("s3cret-value".to_string()),
        _ => None,
    };
    let parse = |oauth: &str| {
        let text = format!("[servers.r]\nurl = \"https://mcp.example.com/mcp\"\noauth = {oauth}\n");
        mcp_pin::config::Config::parse_with(&text, &path, Some(&env))
    };
    let oauth = |oauth: &str| {
        let loaded = parse(oauth).unwrap();
        let mcp_pin::config::Transport::Http(h) = &loaded.config.servers["r"].transport else { panic!("http") };
        assert!(!format!("{h:?}").contains("eyJ"), "no credential in Debug");
        h.oauth.clone().unwrap()
    };
    // Workload identity: the assertion is the grant, no client needed, DPoP on.
    let o =
        oauth(r#"{ grant = "jwt-bearer", assertion = "${OIDC}", issuer = "https://auth.example.com", dpop = true }"#);
    assert!(matches!(&o.grant, Grant::JwtBearer { assertion } if assertion == "eyJ.workload-jwt.sig"));
    assert!(o.dpop && o.client_id.is_empty() && o.client_secret.is_empty());
    // Enterprise-managed: the IdP's fields and the client's credentials at the authorization server.
    let o = oauth(
        r#"{ grant = "enterprise-managed", id_token = "${IDT}", idp_token_endpoint = "https://idp.example.com/token", idp_client_id = "idp-client", client_id = "mcp-client", client_secret = "${CSECRET}" }"#,
    );
    match &o.grant {
        Grant::EnterpriseManaged { id_token, idp_token_endpoint, idp_client_id, idp_client_secret } => {
            assert_eq!(id_token, "eyJ.id-token.sig");
            assert_eq!(idp_token_endpoint, "https://idp.example.com/token");
            assert_eq!(idp_client_id.as_deref(), Some("idp-client"));
            assert!(idp_client_secret.is_none());
        }
        _ => panic!("enterprise-managed"),
    }
    assert!(!o.dpop && o.client_secret == "s3cret-value");
    // The default grant is still client credentials.
    assert!(matches!(oauth(r#"{ client_id = "x", client_secret = "yyyy" }"#).grant, Grant::ClientCredentials));
    // Invalid combinations are errors naming the server, the key and the file.
    for (bad, want) in [
        (
            r#"{ client_id = "x", client_secret = "yyyy", assertion = "${OIDC}" }"#,
            "`oauth.assertion` is for `grant = \"jwt-bearer\"`",
        ),
        (r#"{ grant = "jwt-bearer" }"#, "needs `assertion`"),
        (r#"{ grant = "jwt-bearer", assertion = "${OIDC}", client_secret = "yyyy" }"#, "no `client_id`"),
        (r#"{ grant = "jwt-bearer", assertion = "${OIDC}", id_token = "${IDT}" }"#, "`oauth.id_token` is for"),
        (
            r#"{ grant = "device-code", client_id = "x", client_secret = "yyyy" }"#,
            "one of client-credentials, jwt-bearer, enterprise-managed",
        ),
        (
            r#"{ grant = "enterprise-managed", idp_token_endpoint = "https://idp.example.com/token", client_id = "x", client_secret = "yyyy" }"#,
            "needs `id_token`",
        ),
        (
            r#"{ grant = "enterprise-managed", id_token = "${IDT}", client_id = "x", client_secret = "yyyy" }"#,
            "needs `idp_token_endpoint`",
        ),
        (
            r#"{ grant = "enterprise-managed", id_token = "${IDT}", idp_token_endpoint = "https://idp.example.com/token", client_id = "x" }"#,
            "needs `client_secret`",
        ),
        (
            r#"{ grant = "enterprise-managed", id_token = "${IDT}", idp_token_endpoint = "http://idp.example.com/token", client_id = "x", client_secret = "yyyy" }"#,
            "`oauth.idp_token_endpoint` must be an https:// URL",
        ),
        (r#"{ client_id = "x", client_secret = "yyyy", dpop = "yes" }"#, "`oauth.dpop` must be true or false"),
    ] {
        let e = parse(bad).unwrap_err().to_string();
        assert!(e.contains(want) && e.contains("server `r`") && e.contains("mcp-pin.toml"), "{bad}: {e}");
        assert!(!e.contains("eyJ"), "no credential in the error: {e}");
    }
}
