//! Secrets in server text (issue #22, 1): a secret a server echoes is masked before anything is
//! cut or split (a stderr line, a non-JSON stdout line, an HTTP error body), in every spelling
//! (JSON's `\u002B`, percent-encoding, XML references), line by line for a multi-line secret;
//! and `init` turns a token in a URL's path into a `${VAR}`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use serde_json::json;

use crate::common::*;

/// `text` with the escapes an output can spell a character with undone (JSON `\uXXXX` and
/// `\/`, `%HH`, XML `&#NN;`/`&#xHH;`/`&amp;`), written here independently of mcp-pin.
fn unescaped(text: &str) -> String {
    let re = regex::Regex::new(
        r"\\u([0-9a-fA-F]{4})|\\u\{([0-9a-fA-F]{1,6})\}|%([0-9a-fA-F]{2})|&#x([0-9a-fA-F]+);|&#([0-9]+);|\\(/)|&(amp);",
    )
    .unwrap();
    let mut t = text.to_string();
    for _ in 0..2 {
        t = re
            .replace_all(&t, |c: &regex::Captures| {
                let hex = c
                    .get(1)
                    .or(c.get(2))
                    .or(c.get(3))
                    .or(c.get(4))
                    .map(|m| u32::from_str_radix(m.as_str(), 16).unwrap());
                let dec = c.get(5).map(|m| m.as_str().parse::<u32>().unwrap());
                match (hex.or(dec), c.get(6), c.get(7)) {
                    (Some(n), _, _) => char::from_u32(n).map(String::from).unwrap_or_default(),
                    (None, Some(_), _) => "/".into(),
                    _ => "&".into(),
                }
            })
            .into_owned();
    }
    t
}

/// Whether any 8 characters in a row of `secret` are in `out`, as written or unescaped.
fn leaks(out: &str, secret: &str) -> Option<String> {
    let chars: Vec<char> = secret.chars().collect();
    let plain = unescaped(out);
    chars
        .windows(8)
        .map(|w| w.iter().collect::<String>())
        .find(|w| out.contains(w.as_str()) || plain.contains(w.as_str()))
}

fn assert_no_leak(what: &str, out: &str, secret: &str) {
    if let Some(w) = leaks(out, secret) {
        panic!("{what} shows `{w}` of the secret:\n{out}");
    }
}

const KEY: &str = "sk-live-Zx81kQ2mN7pL0vR5tY3wB9cD4fG6hJ";

/// A stdio server whose configured `API_KEY` is this secret.
fn stdio_project(surface: serde_json::Value) -> Project {
    let p = Project::new();
    p.write_json("s.json", &surface);
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.s]\ncommand = {:?}\nargs = [\"--surface\", \"s.json\"]\nenv = {{ API_KEY = \"${{API_KEY}}\" }}\ntimeout = \"10s\"\n",
            fixture_bin()
        ),
    );
    p
}

fn tool() -> serde_json::Value {
    json!({"name": "t", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}})
}

#[test]
fn a_secret_that_straddles_the_cut_of_a_stderr_or_stdout_line_is_masked_whole() {
    // The key starts 190 characters in: a cut at 200 would keep all but its end.
    for (name, fault) in [
        (
            "stderr",
            json!({"stderr": format!("{}$ENV{{API_KEY}} and more", "x".repeat(190)), "exitDuringHandshake": true}),
        ),
        ("stdout", json!({"junkStdout": format!("{}$ENV{{API_KEY}} and more", "y".repeat(190))})),
    ] {
        let p = stdio_project(json!({"tools": [tool()], "fault": fault}));
        let env = [("API_KEY", KEY)];
        let out = p.run_env(&["lock"], &env);
        let t = text(&out);
        assert!(t.contains(if name == "stderr" { "xxxxxxxx" } else { "yyyyyyyy" }), "{name}: the line is shown: {t}");
        assert_no_leak(name, &t, KEY);
        for format in ["github", "junit", "json"] {
            let out = p.run_env(&["check", "--format", format], &env);
            assert_no_leak(&format!("{name}, check --format {format}"), &text(&out), KEY);
        }
    }
}

#[test]
fn a_multi_line_secret_printed_line_by_line_is_masked() {
    let pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\nNMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ\n-----END PRIVATE KEY-----\n";
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": [tool()], "fault": {"stderr": "loading key:\n$ENV{APP_KEY}\nfailed", "exitDuringHandshake": true}}));
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.s]\ncommand = {:?}\nargs = [\"--surface\", \"s.json\"]\nenv = {{ APP_KEY = \"${{APP_KEY}}\" }}\ntimeout = \"10s\"\n",
            fixture_bin()
        ),
    );
    let out = p.run_env(&["lock"], &[("APP_KEY", pem)]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("loading key:"), "the stderr lines are shown: {t}");
    for line in pem.lines().filter(|l| !l.starts_with("-----")) {
        assert_no_leak("the error", &t, line);
    }
}

/// An HTTP server on 127.0.0.1 that answers every request with `status` and `body`.
fn answering(status: &'static str, content_type: &'static str, body: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(40) {
            let Ok(mut s) = stream else { continue };
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let mut reader = BufReader::new(s.try_clone().unwrap());
            let mut len = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut buf = vec![0; len];
            let _ = reader.read_exact(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

fn http_project(url: &str) -> Project {
    let p = Project::new();
    p.write(
        "mcp-pin.toml",
        &format!("[servers.w]\nurl = {url:?}\nheaders = {{ X-Api-Key = \"${{API_KEY}}\" }}\ntimeout = \"5s\"\n"),
    );
    p
}

#[test]
fn an_http_error_body_is_masked_before_it_is_cut() {
    let url = answering("500 Internal Server Error", "text/plain", format!("{}{KEY} rejected", "z".repeat(190)));
    let p = http_project(&url);
    let out = p.run_env(&["lock"], &[("API_KEY", KEY)]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("HTTP 500"), "{t}");
    assert_no_leak("the error", &t, KEY);
}

#[test]
fn a_secret_in_another_spelling_in_a_json_error_body_is_masked() {
    // ASP.NET's ProblemDetails write `+` as \u002B and may write `/` as \/.
    let key = "ab+cd/Zx81kQ2mN7pL0vR5tY3w=";
    let spelled = key.replace('+', "\\u002B").replace('/', "\\/");
    let body =
        format!(r#"{{"type":"about:blank","title":"Bad Request","status":400,"detail":"invalid key {spelled}"}}"#);
    let url = answering("400 Bad Request", "application/problem+json", body);
    let p = http_project(&url);
    let out = p.run_env(&["lock"], &[("API_KEY", key)]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("invalid key"), "the body is quoted: {t}");
    assert_no_leak("the error", &t, key);
    for format in ["json", "sarif", "github", "junit", "markdown"] {
        let out = p.run_env(&["check", "--format", format], &[("API_KEY", key)]);
        assert_no_leak(&format!("check --format {format}"), &text(&out), key);
    }
}

#[test]
fn init_turns_a_token_in_a_url_path_into_a_variable() {
    let p = Project::new();
    let token = "sk-ak-Zx81kQ2mN7pL0vR5tY3wB9cD";
    p.write_json(
        ".mcp.json",
        &json!({"mcpServers": {
            "zap": {"type": "http", "url": format!("https://actions.example.com/mcp/{token}/sse")},
            "plain": {"type": "http", "url": "https://mcp.example.com/v1/mcp"}
        }}),
    );
    let out = p.run(&["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let toml = p.read("mcp-pin.toml");
    assert!(!toml.contains(token), "{toml}");
    assert!(toml.contains("url = \"https://actions.example.com/mcp/${ZAP_URL_SECRET}/sse\""), "{toml}");
    assert!(toml.contains("token in its path"), "a comment says why: {toml}");
    assert!(toml.contains("#   ZAP_URL_SECRET"), "listed among the variables to set: {toml}");
    assert!(toml.contains("url = \"https://mcp.example.com/v1/mcp\"\n"), "{toml}");
}
