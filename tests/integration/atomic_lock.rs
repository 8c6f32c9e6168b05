//! Killing `mcp-pin lock` at any moment leaves the old lockfile or the new one, never a mix.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

fn surface(n: usize, tag: &str) -> Value {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "name": format!("tool_{i:04}"),
                "description": format!("Tool number {i}, revision {tag}. {}", "Lorem ipsum dolor sit amet. ".repeat(8)),
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
            })
        })
        .collect();
    json!({"serverInfo": {"name": "big", "version": tag}, "tools": tools})
}

#[test]
fn kill_mid_lock_never_leaves_a_corrupt_lockfile() {
    let p = Project::new();
    p.write_json("a.json", &surface(400, "a"));
    p.write_json("b.json", &surface(400, "b"));
    p.stdio_config(&[("one", "a.json"), ("two", "b.json")]);
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let old = p.read("mcp.lock");
    // The new surfaces; a complete lock of them is the only other acceptable content.
    p.write_json("a.json", &surface(400, "a2"));
    p.write_json("b.json", &surface(400, "b2"));
    let mut seen_new = None;
    for i in 0..40u64 {
        let mut child = std::process::Command::new(pin_bin())
            .args(["lock", "--no-probe"])
            .current_dir(p.dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Spread the kills over the run: from right away to well after it finished writing.
        std::thread::sleep(Duration::from_millis((i * 37) % 700));
        let _ = child.kill();
        let _ = child.wait();
        let now = p.read("mcp.lock");
        let parsed: Result<Value, _> = serde_json::from_str(&now);
        assert!(parsed.is_ok(), "kill #{i} left an unparsable lockfile");
        if now != old {
            match &seen_new {
                None => seen_new = Some(now.clone()),
                Some(n) => assert_eq!(&now, n, "kill #{i}: a lock that is neither the old nor the new one"),
            }
            // Once the new one is in place, further runs must keep it byte-identical.
        }
    }
    // A final complete run gives the new lock, equal to whatever complete new lock was seen.
    assert_eq!(p.run(&["lock", "--no-probe"]).status.code(), Some(0));
    let final_lock = p.read("mcp.lock");
    if let Some(n) = seen_new {
        assert_eq!(final_lock, n);
    }
    assert!(final_lock.contains("revision a2") && final_lock.contains("revision b2"));
}
