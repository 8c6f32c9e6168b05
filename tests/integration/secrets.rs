//! A canary secret in every place a secret can be configured (env values, header values, URL
//! userinfo and `?token=`) never appears in the lockfile, any report format, stdout, stderr or an
//! error message of a full run.

use crate::common;

use common::*;
use serde_json::json;

const CANARY: &str = "canary7f3e9b1d";

#[test]
fn canary_secret_appears_nowhere() {
    let p = Project::new();
    let surface = json!({
        "tools": [{"name": "echo", "description": "Echo.", "annotations": {"readOnlyHint": true},
                   "inputSchema": {"type": "object", "properties": {"m": {"type": "string"}}, "required": ["m"]}}]
    });
    p.write_json("s.json", &surface);
    let fx = HttpFixture::start(&p.path("s.json"), &["--require-header", &format!("Authorization: Bearer {CANARY}")]);
    let with_token = fx.url.clone() + &format!("?token={CANARY}");
    // Userinfo becomes Basic auth, which would replace the Authorization header: a second server.
    let fx2 = HttpFixture::start(&p.path("s.json"), &[]);
    let with_userinfo = fx2.url.replace("http://", &format!("http://user:{CANARY}@"));
    // A port nothing listens on, with the canary in its URL: the error must not show it.
    let dead = dead_port();
    p.write(
        "mcp-pin.toml",
        &format!(
            r#"[servers.stdio]
command = {fixture:?}
args = ["--surface", "s.json"]
env = {{ API_KEY = "${{CANARY_VAR}}" }}

[servers.web]
url = {url:?}
headers = {{ Authorization = "Bearer ${{CANARY_VAR}}" }}

[servers.web2]
url = {url2:?}

[servers.dead]
url = "http://user:${{CANARY_VAR}}@127.0.0.1:{dead}/mcp?token=${{CANARY_VAR}}"
timeout = "2s"
"#,
            fixture = fixture_bin(),
            url = with_token,
            url2 = with_userinfo,
        ),
    );
    let env = [("CANARY_VAR", CANARY)];
    let mut blobs = vec![];
    let out = p.run_env(&["lock", "-v"], &env);
    assert_eq!(out.status.code(), Some(2), "dead is unreachable: {}", text(&out));
    blobs.push(text(&out));
    let lock = p.read("mcp.lock");
    assert!(lock.contains("\"web\"") && lock.contains("\"web2\"") && lock.contains("\"stdio\""), "{lock}");
    blobs.push(lock);
    let out = p.run_env(
        &[
            "check",
            "-v",
            "--format",
            "json",
            "--report",
            "markdown=r.md",
            "--report",
            "github=r.txt",
            "--report",
            "sarif=r.sarif",
            "--report",
            "junit=r.xml",
            "--report",
            "human=r.human",
            "--report",
            "json=r.json",
        ],
        &env,
    );
    blobs.push(text(&out));
    for f in ["r.md", "r.txt", "r.sarif", "r.xml", "r.human", "r.json"] {
        blobs.push(p.read(f));
    }
    let out = p.run_env(&["check", "--format", "github"], &env);
    blobs.push(text(&out));
    for (i, b) in blobs.iter().enumerate() {
        assert!(!b.contains(CANARY), "output #{i} leaks the secret:\n{b}");
    }
    // The dead server's error is there, with the secret masked.
    assert!(blobs[0].contains("dead"), "{}", blobs[0]);
}
