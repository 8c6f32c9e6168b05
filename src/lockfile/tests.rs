use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::*;
use crate::surface::ServerSurface;
use serde_json::json;

fn sample() -> Lockfile {
    let mut lock = Lockfile::new();
    let mut tools = BTreeMap::new();
    tools.insert(
        "b".to_string(),
        json!({"name":"b","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}),
    );
    tools.insert("a".to_string(), json!({"name":"a","inputSchema":{"type":"object"}}));
    lock.servers.insert(
        "srv".into(),
        ServerEntry {
            source: json!({"transport":"stdio","command":"x","args":[]}),
            launch: None,
            client_capabilities: vec![],
            client: None,
            surface: ServerSurface {
                protocol_version: "2025-11-25".into(),
                server_info: json!({"name":"s","version":"1"}),
                instructions: Some("hi".into()),
                capabilities: json!({"tools":{}}),
                tools,
            },
            probes: BTreeMap::new(),
        },
    );
    lock
}

#[test]
fn round_trips_and_is_deterministic() {
    let lock = sample();
    let text = lock.to_text();
    let back = Lockfile::parse(&text, Path::new("mcp.lock")).unwrap();
    assert_eq!(back, lock);
    assert_eq!(back.to_text(), text);
    assert!(text.ends_with("}\n"));
    // Unknown tool fields survive.
    assert!(text.contains("\"taskSupport\": \"optional\""));
}

#[test]
fn line_of_finds_tool_entries() {
    let text = sample().to_text();
    let l = line_of(&text, "srv", Some("b")).unwrap();
    assert_eq!(text.lines().nth(l - 1).unwrap(), "        \"b\": {");
    let s = line_of(&text, "srv", None).unwrap();
    assert_eq!(text.lines().nth(s - 1).unwrap(), "    \"srv\": {");
    assert_eq!(line_of(&text, "srv", Some("gone")), Some(s));
    // Empty entries are written on one line (`"name": {}`); found by the lockfile fuzz target.
    let mut lock = sample();
    lock.servers.get_mut("srv").unwrap().surface.tools.insert("empty".into(), json!({}));
    lock.servers.get_mut("srv").unwrap().probes.insert("b".into(), json!({}));
    lock.servers.insert("a-first".into(), ServerEntry::default());
    let text = lock.to_text();
    let l = line_of(&text, "srv", Some("empty")).unwrap();
    assert_eq!(text.lines().nth(l - 1).unwrap(), "        \"empty\": {}");
    let l = line_of(&text, "srv", Some("b")).unwrap();
    assert_eq!(text.lines().nth(l - 1).unwrap(), "        \"b\": {", "the tool, not the probe of the same name");
    let a = line_of(&text, "a-first", Some("b")).unwrap();
    assert!(text.lines().nth(a - 1).unwrap().starts_with("    \"a-first\": {"), "never a tool of the next server");
}

#[test]
fn refuses_newer_and_reports_position() {
    let e = Lockfile::parse(r#"{"lockfileVersion": 99, "servers": {}}"#, Path::new("mcp.lock")).unwrap_err();
    assert!(e.to_string().contains("upgrade mcp-pin"), "{e}");
    let e = Lockfile::parse("{\n  \"lockfileVersion\": 1,\n  \"servers\": {\n", Path::new("mcp.lock")).unwrap_err();
    match e {
        LockfileError::Syntax { line, .. } => assert_eq!(line, 4),
        other => panic!("{other}"),
    }
}

#[test]
fn scan_names_the_part_of_a_broken_lock_that_is_wrong() {
    let err = |text: &str| Lockfile::parse(text, Path::new("mcp.lock")).unwrap_err().to_string();
    let cases = [
        (r#"[1, 2]"#, "the top level is not an object"),
        (r#"12"#, "the top level is not an object"),
        (r#"{"servers": {}}"#, "`lockfileVersion` is missing"),
        (r#"{"lockfileVersion": 1, "servers": []}"#, "`servers` is not an object"),
        (r#"{"lockfileVersion": 1, "servers": {"a": 3}}"#, "server `a` is not an object"),
        (r#"{"lockfileVersion": 1, "servers": {"a": 3.5e2}}"#, "server `a` is not an object"),
        (r#"{"lockfileVersion": 1, "servers": {"a": {"tools": 7}}}"#, "server `a`: `tools` is not an object"),
        (r#"{"lockfileVersion": 1, "servers": {"a": {"tools": {"t": [1]}}}}"#, "server `a`, tool `t` is not an object"),
        (
            r#"{"lockfileVersion": 1, "servers": {"a": {"tools": {}, "instructions": 1}}}"#,
            "`instructions` is not a string",
        ),
        // The version is judged before the shape: a newer lock may be shaped differently.
        (r#"{"lockfileVersion": 2, "servers": 5}"#, "upgrade mcp-pin"),
    ];
    for (text, want) in cases {
        let e = err(text);
        assert!(e.contains(want), "{text}: {e}");
    }
    // Unknown top-level and server keys are skipped; a number key at the top is just a key.
    let ok = r#"{"lockfileVersion": 1, "x": {"y": [1, {"z": 2}]}, "servers": {"a": {"extra": 1e400, "tools": {"t": {"name": "t"}}}}}"#;
    let lock = Lockfile::parse(ok, Path::new("mcp.lock")).unwrap();
    assert_eq!(lock.servers["a"].surface.tools["t"], json!({"name": "t"}));
}

#[test]
fn big_locks_are_mapped_and_read_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let mut lock = sample();
    let entry = lock.servers.get_mut("srv").unwrap();
    for i in 0..400 {
        entry.surface.tools.insert(format!("t{i}"), json!({"name": format!("t{i}"), "description": "x".repeat(4000)}));
    }
    let p = dir.path().join("mcp.lock");
    lock.write(&p).unwrap();
    let text = LockText::read(&p).unwrap();
    assert!(matches!(text, LockText::Mapped(_)), "a 1.6 MB lock is mapped");
    assert_eq!(Lockfile::parse(text.as_str(), &p).unwrap(), lock);
    assert_eq!(Lockfile::read(&p).unwrap(), lock);
    // A big file that is not UTF-8 is refused like a small one.
    let mut bytes = lock.to_text().into_bytes();
    bytes[100] = 0xff;
    std::fs::write(&p, &bytes).unwrap();
    let e = LockText::read(&p).err().expect("not UTF-8");
    assert!(matches!(e, LockfileError::Io { .. }), "{e}");
    assert!(matches!(LockText::read(&dir.path().join("none.lock")), Err(LockfileError::Missing { .. })));
}

#[test]
fn pending_entries_parse_only_the_tools_that_changed() {
    let mut lock = sample();
    lock.servers
        .get_mut("srv")
        .unwrap()
        .surface
        .tools
        .insert("n".into(), serde_json::from_str(r#"{"name":"n","inputSchema":{"maximum":1e3}}"#).unwrap());
    let text = lock.to_text();
    let scanned = ScannedLock::scan(&text, Path::new("mcp.lock")).unwrap();
    let pending = scanned.pending(&|s| s == "srv").unwrap();
    assert_eq!(pending.len(), 1);
    let p = pending["srv"].clone();
    assert_eq!(p.entry.surface.instructions.as_deref(), Some("hi"));
    assert!(p.entry.surface.tools.is_empty());
    // Live: `a` unchanged, `n` unchanged but spelled 1e3 (the lock says 1e+3), `b` changed, `c` new.
    let mut live = lock.servers["srv"].surface.clone();
    live.tools.insert("n".into(), serde_json::from_str(r#"{"name":"n","inputSchema":{"maximum":1e3}}"#).unwrap());
    live.tools.insert("b".into(), json!({"name": "b", "inputSchema": {"type": "string"}}));
    live.tools.insert("c".into(), json!({"name": "c"}));
    let pinned = p.resolve(&mut live).unwrap();
    assert_eq!(pinned.surface.tools.keys().collect::<Vec<_>>(), ["b"], "only the changed tool is parsed");
    assert_eq!(pinned.surface.tools["b"], lock.servers["srv"].surface.tools["b"]);
    assert_eq!(live.tools.keys().collect::<Vec<_>>(), ["b", "c"], "unchanged tools leave both sides");
    // A lock formatted by hand is not canonical text: every tool is parsed, none is lost.
    let compact = serde_json::to_string(&serde_json::from_str::<Value>(&text).unwrap()).unwrap();
    let scanned = ScannedLock::scan(&compact, Path::new("mcp.lock")).unwrap();
    let mut live = lock.servers["srv"].surface.clone();
    let pinned = scanned.pending(&|_| true).unwrap().remove("srv").unwrap().resolve(&mut live).unwrap();
    assert_eq!(pinned.surface.tools, lock.servers["srv"].surface.tools);
    assert_eq!(live.tools, lock.servers["srv"].surface.tools);
    assert_eq!(scanned.server_names().collect::<Vec<_>>(), ["srv"]);
}

#[test]
fn atomic_write_replaces_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mcp.lock");
    sample().write(&p).unwrap();
    let first = std::fs::read_to_string(&p).unwrap();
    sample().write(&p).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), first);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temp files left behind");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), 0o644, "a new lock is readable by others, not 0600 like a temp file");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        sample().write(&p).unwrap();
        assert_eq!(mode(&p), 0o640, "a replaced lock keeps its permissions");
    }
}
