//! Masking never corrupts what it masks (issue #20): settings in a dotenv file (`DEBUG=true`,
//! `PORT=8080`) are no secrets; a secret's value inside a server's text is pinned masked and
//! compared masked, so it is never drift; every structured output parses; digests are computed
//! from what is pinned; reports are written, not replaced; `report merge` does not depend on the
//! order of its files; a signal during a lock write leaves no temporary file.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[cfg(unix)]
use std::os::unix::fs::FileTypeExt;

use base64::Engine;
use serde_json::{json, Value};
use sha2::Digest;

use crate::common::*;

/// A tool with booleans, numbers and `null` in every place a surface has them.
fn settings_tool(description: &str) -> Value {
    json!({
        "name": "search",
        "description": description,
        "annotations": {"readOnlyHint": true, "openWorldHint": false, "destructiveHint": false},
        "inputSchema": {
            "type": "object",
            "properties": {
                "port": {"type": "integer", "default": 8080, "maximum": 65535},
                "mode": {"type": ["string", "null"], "default": null, "enum": ["fast", "exact", null]},
                "debug": {"type": "boolean", "default": true}
            }
        }
    })
}

fn config_with_env_file(p: &Project) {
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.s]\ncommand = {:?}\nargs = [\"--surface\", \"s.json\"]\nenv_file = \".env\"\ntimeout = \"10s\"\n",
            fixture_bin()
        ),
    );
}

fn lock_json(p: &Project) -> Value {
    let text = p.read("mcp.lock");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("the lockfile is not JSON ({e}):\n{text}"))
}

#[test]
fn settings_in_a_dotenv_file_lock_and_check_clean() {
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": [settings_tool("Search the index (mode fast or exact).")]}));
    p.write(".env", "DEBUG=true\nVERBOSE=false\nMODE=null\nPORT=8080\nRATIO=0.5\n");
    config_with_env_file(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock = lock_json(&p);
    let tool = &lock["servers"]["s"]["tools"]["search"];
    assert_eq!(tool["annotations"]["openWorldHint"], json!(false), "{tool}");
    assert_eq!(tool["inputSchema"]["properties"]["port"]["default"], json!(8080));
    assert_eq!(tool["inputSchema"]["properties"]["mode"]["default"], Value::Null);
    assert_eq!(tool["inputSchema"]["properties"]["debug"]["default"], json!(true));
    assert!(!p.read("mcp.lock").contains("***"), "no setting is masked:\n{}", p.read("mcp.lock"));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert!(changes(&report).is_empty(), "{report:#}");
    let before = p.read("mcp.lock");
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("unchanged"), "{}", text(&out));
    assert_eq!(p.read("mcp.lock"), before);
}

const ORG: &str = "acme-widgets-7f3e";

#[test]
fn a_secret_inside_a_description_is_pinned_masked_and_never_drift() {
    let p = Project::new();
    let description = format!("Search the issues of {ORG} (only {ORG}).");
    // The probe's result pins a URI scheme that is the secret too.
    let calls = json!({"search": {"result": {"content": [{"type": "resource_link", "uri": format!("{ORG}://issues/1"), "name": "issue"}]}}});
    p.write_json(
        "s.json",
        &json!({"tools": [settings_tool(&description)], "instructions": format!("Work for {ORG}."), "calls": calls}),
    );
    p.write(".env", &format!("ORG={ORG}\nDEBUG=true\n"));
    config_with_env_file(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock_text = p.read("mcp.lock");
    assert!(!lock_text.contains(ORG), "{lock_text}");
    let lock = lock_json(&p);
    assert_eq!(lock["servers"]["s"]["tools"]["search"]["description"], "Search the issues of *** (only ***).");
    assert_eq!(lock["servers"]["s"]["instructions"], "Work for ***.");
    assert!(lock["servers"]["s"]["probes"]["search"].to_string().contains("\"***:\""), "{lock:#}");
    for _ in 0..2 {
        let (code, report) = p.check_json(&[]);
        assert_eq!(code, 0, "{report:#}");
        assert!(changes(&report).is_empty(), "masked on both sides, so no drift: {report:#}");
        let probes = report["servers"][0]["probes"].as_array().unwrap();
        assert!(probes.iter().all(|p| p["outcome"] == "pass"), "the pinned result compares masked too: {report:#}");
    }
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("unchanged"), "{}", text(&out));
    assert_eq!(p.read("mcp.lock"), lock_text, "a second lock is a no-op");
    // A real change next to the secret is still seen, and shown masked.
    let changed = description.replace("Search", "Delete");
    p.write_json(
        "s.json",
        &json!({"tools": [settings_tool(&changed)], "instructions": format!("Work for {ORG}."), "calls": calls}),
    );
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 1, "{report:#}");
    let found = changes(&report);
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(found[0].2, "description-changed");
    assert!(!report.to_string().contains(ORG), "{report:#}");
}

/// SHA-256 over RFC 8785 JSON, `sha256-<base64url>`, computed here from the lock's text.
fn digest_of(tool: &Value) -> String {
    let jcs = serde_jcs::to_string(tool).unwrap();
    format!("sha256-{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(jcs.as_bytes())))
}

#[test]
fn digests_are_of_what_is_pinned_and_confirm_no_guess() {
    let p = Project::new();
    let raw = settings_tool(&format!("Issues of {ORG}."));
    // The server claims a digest of what it sends, secret and all.
    let mut claimed = raw.clone();
    claimed["schemaHash"] = json!(digest_of(&raw));
    p.write_json("s.json", &json!({"tools": [claimed]}));
    p.write(".env", &format!("ORG={ORG}\n"));
    config_with_env_file(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock = lock_json(&p);
    let pinned = &lock["servers"]["s"]["tools"]["search"];
    assert_eq!(pinned["description"], "Issues of ***.");
    assert_eq!(pinned["schemaHash"], "***", "the server's claim would confirm a guess of the secret");
    let mut without_claim = pinned.clone();
    without_claim.as_object_mut().unwrap().remove("schemaHash");
    let recorded = lock["servers"]["s"]["digests"]["search"].as_str().unwrap().to_string();
    assert_eq!(recorded, digest_of(&without_claim), "the digest is recomputed from the lock");
    // Hashing a right guess of the secret does not give the recorded digest.
    let mut guess = without_claim.clone();
    guess["description"] = json!(format!("Issues of {ORG}."));
    assert_ne!(digest_of(&guess), recorded);
    assert!(!p.read("mcp.lock").contains(&digest_of(&raw)));
    let (code, report) = p.check_json(&[]);
    assert_eq!(code, 0, "no tool-digest-mismatch for a masked claim: {report:#}");
    assert!(changes(&report).is_empty(), "{report:#}");
}

#[test]
fn a_secret_in_a_tool_name_is_refused_naming_the_tool() {
    let p = Project::new();
    let mut tool = settings_tool("Search.");
    tool["name"] = json!(format!("{ORG}_search"));
    p.write_json("s.json", &json!({"tools": [tool]}));
    p.write(".env", &format!("ORG={ORG}\n"));
    config_with_env_file(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("the name of tool `***_search` holds the value of a configured secret"), "{t}");
    assert!(!t.contains(ORG), "{t}");
    assert!(!p.path("mcp.lock").exists(), "nothing pinned");
}

/// The second secret of [`every_position_surface`], beside [`ORG`].
const TEAM: &str = "team-blue-4c21d9";

/// A surface with [`ORG`] in every position a server can put a string (issue #31, 1): a tool's
/// description, a property's name, an enum member, a default, `instructions`, `serverInfo` (a
/// value and a key), a capability's key, and in the probes' results: a key and a value of
/// `structuredContent` (two keys that mask alike, [`TEAM`] the other), a text block, an
/// `isError` text and a JSON-RPC error's message. `owner` is the type of what the secret key
/// holds (the result's skeleton pins it).
fn every_position_surface(owner: Value, enum_members: Value, id_type: &str) -> Value {
    let search = json!({
        "name": "search",
        "description": format!("Search the issues of {ORG}."),
        "annotations": {"readOnlyHint": true},
        "inputSchema": {
            "type": "object",
            "properties": {
                format!("{ORG}_id"): {"type": id_type},
                "mode": {"type": "string", "enum": enum_members},
                "scope": {"type": "string", "default": ORG}
            }
        }
    });
    let failing =
        |name: &str| json!({"name": name, "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}});
    json!({
        "serverInfo": {"name": format!("fixture of {ORG}"), "version": "1.0.0", "title": ORG},
        "capabilities": {"tools": {}, "experimental": {ORG: {"on": true}}},
        "instructions": format!("Work for {ORG} only."),
        "tools": [search, failing("denied"), failing("broken")],
        "calls": {
            "search": {"result": {
                "content": [{"type": "text", "text": format!("found 3 issues of {ORG}")}],
                "structuredContent": {ORG: {"owner": owner, "name": ORG}, TEAM: {"owner": "x"}, "count": 3}
            }},
            "denied": {"result": {"isError": true, "content": [{"type": "text", "text": format!("no access to {ORG}")}]}},
            "broken": {"error": {"code": -32000, "message": format!("backend for {ORG} is down")}}
        }
    })
}

/// Every file `check` wrote with `--report FORMAT=r.FORMAT`, with its stdout and stderr.
fn every_format(p: &Project, extra: &[&str]) -> (Option<i32>, Vec<(String, String)>) {
    let formats = ["json", "sarif", "junit", "markdown", "github", "human"];
    let specs: Vec<String> = formats.iter().map(|f| format!("{f}=r.{f}")).collect();
    let mut args = vec!["check", "-v"];
    args.extend_from_slice(extra);
    for s in &specs {
        args.extend(["--report", s.as_str()]);
    }
    let out = p.run(&args);
    let mut seen = vec![
        ("stdout".to_string(), String::from_utf8_lossy(&out.stdout).into_owned()),
        ("stderr".to_string(), String::from_utf8_lossy(&out.stderr).into_owned()),
    ];
    for f in formats {
        seen.push((format!("the {f} report"), p.read(&format!("r.{f}"))));
    }
    (out.status.code(), seen)
}

/// Issue #31, 1: every string from a server passes the one masking layer, wherever it lands.
/// With key masking taken out of `secrets::mask_json` (done once by hand), the lock holds the
/// secret as a property name and as a key of the pinned `structuredContent` skeleton, and this
/// test fails at its first look into the lock.
#[test]
fn walks_every_position_of_a_lock_and_of_every_report_format_with_a_registered_secret_planted_in_each_and_finds_it_nowhere(
) {
    let p = Project::new();
    p.write_json("s.json", &every_position_surface(json!("acme"), json!(["fast", ORG]), "string"));
    p.write(".env", &format!("ORG={ORG}\nTEAM={TEAM}\n"));
    config_with_env_file(&p);
    let nowhere = |what: &str, body: &str| {
        for secret in [ORG, TEAM] {
            assert!(!body.contains(secret), "{what} holds `{secret}`:\n{body}");
        }
    };
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    nowhere("lock's output", &text(&out));
    let lock_text = p.read("mcp.lock");
    nowhere("mcp.lock", &lock_text);
    let lock = lock_json(&p);
    let entry = &lock["servers"]["s"];
    let props = &entry["tools"]["search"]["inputSchema"]["properties"];
    assert_eq!(props["***_id"], json!({"type": "string"}), "a property's name, masked: {props:#}");
    assert_eq!(props["mode"]["enum"], json!(["fast", "***"]));
    assert_eq!(props["scope"]["default"], "***");
    assert_eq!(entry["serverInfo"]["title"], "***");
    assert_eq!(entry["capabilities"]["experimental"]["***"], json!({"on": true}));
    assert_eq!(entry["instructions"], "Work for *** only.");
    // Two keys that mask alike stay two entries, named by what they hold, not by the secret.
    let skeleton = &entry["probes"]["search"]["structuredContent"];
    assert_eq!(
        skeleton,
        &json!({"***": {"owner": "string", "name": "string"}, "***#2": {"owner": "string"}, "count": "integer"}),
        "{entry:#}"
    );

    // Round trip: the unchanged server is no change, in every format, and a second lock is a no-op.
    let (code, seen) = every_format(&p, &["--format", "json"]);
    assert_eq!(code, Some(0), "{seen:#?}");
    let report: Value = serde_json::from_str(&seen[0].1).unwrap();
    assert!(changes(&report).is_empty(), "{report:#}");
    for (what, body) in &seen {
        nowhere(what, body);
    }
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("unchanged"), "{}", text(&out));
    assert_eq!(p.read("mcp.lock"), lock_text, "a second lock is a no-op");

    // Drift in the secret's positions: reported in every format, the secret still nowhere.
    p.write_json("s.json", &every_position_surface(json!(7), json!(["fast"]), "integer"));
    let (code, seen) = every_format(&p, &["--format", "json"]);
    assert_eq!(code, Some(1), "{seen:#?}");
    let report: Value = serde_json::from_str(&seen[0].1).unwrap();
    let rules: Vec<String> = changes(&report).into_iter().map(|c| c.2).collect();
    for rule in ["enum-value-removed", "type-narrowed"] {
        assert!(rules.iter().any(|r| r == rule), "{rule} in {rules:?}: {report:#}");
    }
    let probes = report["servers"][0]["probes"].to_string();
    assert!(probes.contains("result-shape-changed"), "{report:#}");
    for (what, body) in &seen {
        nowhere(what, body);
        if what == "the json report" || what == "the sarif report" {
            serde_json::from_str::<Value>(body).unwrap_or_else(|e| panic!("{what} does not parse ({e})"));
        }
    }
    assert!(seen[0].1.contains("***_id"), "the change names the masked property: {report:#}");
}

/// Python's XML parser says the text is well-formed (None when python3 is not here).
fn xml_parses(xml: &str) -> Option<bool> {
    use std::io::Write;
    let mut child = Command::new("python3")
        .args(["-c", "import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.buffer.read())"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take().unwrap().write_all(xml.as_bytes()).unwrap();
    Some(child.wait().unwrap().success())
}

#[test]
fn every_structured_output_parses_under_settings_and_secrets() {
    let p = Project::new();
    let first = settings_tool(&format!("Search {ORG} for true, null and 8080."));
    p.write_json("s.json", &json!({"tools": [first]}));
    // Settings that are JSON tokens or numbers, and a secret that is in the surface.
    p.write(".env", &format!("A=true\nB=null\nC=8080\nD=false\nE=65535\nORG={ORG}\n"));
    config_with_env_file(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    lock_json(&p);
    // Drift with the secret, booleans, nulls and numbers in before/after values.
    let mut second = settings_tool(&format!("Search {ORG} now (true/null/8080)."));
    second["annotations"]["openWorldHint"] = json!(true);
    second["inputSchema"]["properties"]["port"]["default"] = json!(null);
    second["inputSchema"]["properties"]["mode"]["enum"] = json!(["fast", ORG, null]);
    second["inputSchema"]["properties"]["debug"]["default"] = json!(false);
    p.write_json("s.json", &json!({"tools": [second]}));
    let formats = ["json", "sarif", "junit", "markdown", "github", "human"];
    let mut args = vec!["check", "-v", "--format", "json"];
    let specs: Vec<String> = formats.iter().map(|f| format!("{f}=r.{f}")).collect();
    for s in &specs {
        args.extend(["--report", s.as_str()]);
    }
    let out = p.run(&args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout: Value = serde_json::from_slice(&out.stdout).expect("stdout JSON parses");
    assert!(!changes(&stdout).is_empty());
    for f in formats {
        let body = p.read(&format!("r.{f}"));
        assert!(!body.contains(ORG), "{f} leaks:\n{body}");
        match f {
            "json" | "sarif" => {
                let v: Value =
                    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{f} does not parse ({e}):\n{body}"));
                assert!(v.to_string().contains("***"), "{f} shows the secret masked: {v}");
            }
            "junit" => match xml_parses(&body) {
                Some(ok) => assert!(ok, "JUnit XML does not parse:\n{body}"),
                None => skip("python3 not here: JUnit XML well-formedness not checked"),
            },
            _ => {}
        }
    }
    let json_report: Value = serde_json::from_str(&p.read("r.json")).unwrap();
    let text_of_changes = json_report.to_string();
    assert!(
        text_of_changes.contains("\"before\":false") || text_of_changes.contains("\"after\":true"),
        "{json_report:#}"
    );
}

#[test]
#[cfg(unix)]
fn a_report_is_written_to_stdout_a_symlink_or_a_fifo_never_replaced() {
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": [settings_tool("Search.")]}));
    p.stdio_config(&[("s", "s.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    // Through a symlink: the target is written and the link stays a link.
    std::fs::create_dir(p.path("out")).unwrap();
    std::os::unix::fs::symlink(p.path("out/real.json"), p.path("link.json")).unwrap();
    let out = p.run(&["check", "--format", "json", "--output", "link.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(std::fs::symlink_metadata(p.path("link.json")).unwrap().file_type().is_symlink());
    let v: Value = serde_json::from_str(&p.read("out/real.json")).unwrap();
    assert_eq!(v["verdict"], "pass");
    // To this process's stdout: the report alone, not followed by the human one.
    let out = p.run(&["check", "--format", "json", "--output", "/dev/stdout"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    assert_eq!(v["verdict"], "pass");
    // A FIFO is written to (a reader takes it).
    if Command::new("mkfifo").arg(p.path("pipe")).status().is_ok_and(|s| s.success()) {
        let path = p.path("pipe");
        let reader = std::thread::spawn(move || std::fs::read_to_string(path).unwrap());
        let out = p.run(&["check", "--report", "sarif=pipe"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let sarif: Value = serde_json::from_str(&reader.join().unwrap()).unwrap();
        assert_eq!(sarif["version"], "2.1.0");
        assert!(std::fs::symlink_metadata(p.path("pipe")).unwrap().file_type().is_fifo());
    } else {
        skip("no mkfifo here: the FIFO case is not run");
    }
    assert!(leftovers(p.dir.path()).is_empty(), "{:?}", leftovers(p.dir.path()));
}

/// Temporary files mcp-pin left in `dir`.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.starts_with(".mcp-pin-") && n.ends_with(".tmp"))
        .collect()
}

/// A user id other than root's to run a command as, when this process is root.
fn unprivileged() -> Option<u32> {
    let root = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&root.stdout).trim() != "0" {
        return None;
    }
    Some(65534)
}

#[test]
#[cfg(unix)]
fn output_to_dev_stdout_works_for_a_user_who_is_not_root() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": [settings_tool("Search.")]}));
    p.stdio_config(&[("s", "s.json")]);
    assert_eq!(p.run(&["lock"]).status.code(), Some(0));
    // `mcp-pin diff` of the lock with itself: offline, so only the binary and the folder
    // need to be reachable by that user.
    let uid = match unprivileged() {
        Some(uid) => uid,
        None => {
            // Not root: this process itself is the user who is not root.
            let out = p.run(&["diff", "mcp.lock", "mcp.lock", "--format", "json", "--output", "/dev/stdout"]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out));
            serde_json::from_slice::<Value>(&out.stdout).expect("the report on stdout");
            return;
        }
    };
    let reachable = |p: &Path| {
        p.ancestors().all(|d| {
            d.as_os_str().is_empty()
                || std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0 || !m.is_dir())
        })
    };
    // A binary in a folder that user cannot enter (a home of mode 0750, as in CI) is run from a
    // copy in a folder everyone may enter.
    let copy = tempfile::tempdir().unwrap();
    let bin = if reachable(Path::new(pin_bin())) {
        std::path::PathBuf::from(pin_bin())
    } else {
        std::fs::set_permissions(copy.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let to = copy.path().join("mcp-pin");
        std::fs::copy(pin_bin(), &to).unwrap();
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).unwrap();
        to
    };
    if !reachable(&bin) {
        skip("the copy of the mcp-pin binary is in a folder another user cannot enter");
        return;
    }
    std::fs::set_permissions(p.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(p.path("mcp.lock"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink("/dev/stdout", p.path("out.json")).unwrap();
    // To /dev/stdout, and through a symlink to it.
    for target in ["/dev/stdout", "out.json"] {
        let out = Command::new(&bin)
            .args(["diff", "mcp.lock", "mcp.lock", "--format", "json", "--output", target])
            .current_dir(p.dir.path())
            .env("NO_COLOR", "1")
            .env_remove("CI")
            .uid(uid)
            .gid(uid)
            .output();
        let out = match out {
            Ok(o) => o,
            Err(e) => {
                skip(&format!("cannot run as uid {uid}: {e}"));
                return;
            }
        };
        assert_eq!(out.status.code(), Some(0), "{target} as uid {uid}: {}", text(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
        assert_eq!(v["verdict"], "pass");
    }
    assert!(std::fs::symlink_metadata(p.path("out.json")).unwrap().file_type().is_symlink());
    assert!(leftovers(Path::new("/dev")).is_empty());
}

#[test]
fn report_merge_gives_one_verdict_whatever_the_order() {
    let p = Project::new();
    p.write_json("a.json", &json!({"verdict": "pass", "failOn": "never", "servers": [
        {"name": "x", "status": "ok", "error": null, "changes": [
            {"rule": "tool-added", "class": "loud", "tool": "t", "pointer": "", "message": "tool t was added", "before": null, "after": null}
        ], "probes": [], "notes": []}
    ]}));
    p.write_json(
        "b.json",
        &json!({"verdict": "pass", "failOn": "loud", "servers": [
            {"name": "y", "status": "ok", "error": null, "changes": [], "probes": [], "notes": []}
        ]}),
    );
    let run = |files: [&str; 2]| {
        let out = p.run(&["report", "merge", files[0], files[1], "--format", "json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
        (out.status.code(), v)
    };
    let ab = run(["a.json", "b.json"]);
    let ba = run(["b.json", "a.json"]);
    assert_eq!(ab, ba);
    assert_eq!(ab.0, Some(1), "the strictest gate (loud) fails on the loud change: {:#}", ab.1);
    // A server with two different results: an error naming both files, in either order.
    p.write_json("c.json", &json!({"servers": [{"name": "x", "status": "error", "error": "down", "changes": []}]}));
    for files in [["a.json", "c.json"], ["c.json", "a.json"]] {
        let out = p.run(&["report", "merge", files[0], files[1]]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let t = text(&out);
        assert!(t.contains("a.json") && t.contains("c.json") && t.contains("server `x`"), "{t}");
    }
    // An error names the file.
    p.write("bad.json", "{\"servers\": [], \"servers\": []}");
    let out = p.run(&["report", "merge", "a.json", "bad.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("report bad.json: duplicate key `servers`"), "{}", text(&out));
}

#[test]
#[cfg(target_os = "linux")]
fn a_signal_while_the_lock_is_written_leaves_no_temporary_file() {
    // A lock of some 12 MB takes a while to write; the signal lands while it is.
    let p = Project::new();
    let tools: Vec<Value> = (0..12)
        .map(|i| json!({"name": format!("t{i:02}"), "description": "x".repeat(1_000_000), "inputSchema": {"type": "object"}}))
        .collect();
    p.write_json("s.json", &json!({"tools": tools}));
    p.stdio_config(&[("s", "s.json")]);
    let mut caught = 0;
    for _ in 0..3 {
        if caught > 0 {
            break;
        }
        let _ = std::fs::remove_file(p.path("mcp.lock"));
        let child = Command::new(pin_bin())
            .args(["lock", "--no-probe"])
            .current_dir(p.dir.path())
            .env_remove("CI")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(180);
        let seen = loop {
            if !leftovers(p.dir.path()).is_empty() {
                break true;
            }
            if p.path("mcp.lock").exists() || Instant::now() > deadline {
                break false;
            }
            std::thread::sleep(Duration::from_micros(200));
        };
        if seen {
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGTERM)
                .unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(leftovers(p.dir.path()).is_empty(), "a temporary file is left: {:?}", leftovers(p.dir.path()));
        if seen {
            caught += 1;
            assert_eq!(out.status.code(), Some(143));
            // The signal can land just after the rename that puts the whole lock in place: then
            // the lock is there, whole. Never a part of one.
            if p.path("mcp.lock").exists() {
                let lock: Value = serde_json::from_str(&p.read("mcp.lock")).expect("a lock in place is whole JSON");
                assert!(lock["servers"]["s"]["tools"]["t11"].is_object(), "a lock in place holds every tool");
            }
        }
    }
    if caught == 0 {
        // A chance no install gives: the write outran the poll three times.
        skip_inherent("the write was never caught in progress: no signal landed during it");
    }
}
