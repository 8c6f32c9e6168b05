//! Entry points for the fuzz targets in `fuzz/` (one function per target, so the regression
//! tests in `tests/integration/fuzz_regressions.rs` replay a crash through exactly the code the fuzzer ran).
//!
//! Each function takes arbitrary bytes, must never panic on them, and asserts the invariants that
//! hold for any input it accepts; a failed assertion is a bug the fuzzer reports as a crash.

use std::path::Path;

use serde_json::{json, Value};

use crate::config::Config;
use crate::diff::{diff_surfaces, surface_from_json};
use crate::lockfile::{line_of, Lockfile, ScannedLock};

/// Lockfile parsing: anything that parses writes back to canonical text that parses to the
/// same lock, diffs against itself to nothing, and has a line for every tool.
pub fn lockfile(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("mcp.lock");
    let Ok(lock) = Lockfile::parse(text, path) else {
        return;
    };
    let canonical = lock.to_text();
    let again = Lockfile::parse(&canonical, path).expect("the canonical text of a parsed lock parses");
    assert_eq!(again.to_text(), canonical, "canonical text is a fixed point");
    // Nothing dropped: the tools that are kept are exactly those asked for.
    let scanned = ScannedLock::scan(text, path).expect("what parses, scans");
    let none = scanned.build(&|_, _, _| false).unwrap();
    assert!(none.servers.values().all(|s| s.surface.tools.is_empty()));
    assert_eq!(none.servers.len(), lock.servers.len());
    // `check`'s path: each server's tools resolved against the same surface leave no change,
    // whether or not the input was canonical text.
    for (name, pending) in scanned.pending(&|_| true).unwrap() {
        let mut live = lock.servers[&name].surface.clone();
        let pinned = pending.resolve(&mut live).expect("a scanned lock's tools parse");
        let d = diff_surfaces(&pinned.surface, &live);
        assert!(d.is_empty(), "server `{name}` resolved against itself differs: {d:?}");
    }
    for (name, entry) in &again.servers {
        let d = diff_surfaces(&lock.servers[name].surface, &entry.surface);
        assert!(d.is_empty(), "server `{name}` differs from its own rewrite: {d:?}");
        let server_line = line_of(&canonical, name, None).expect("every server has a line");
        for tool in entry.surface.tools.keys() {
            let l = line_of(&canonical, name, Some(tool)).expect("every tool has a line");
            assert!(l > server_line, "tool `{tool}` of `{name}` points at line {l}, server at {server_line}");
        }
    }
}

/// Config parsing: `mcp-pin.toml` and every client config format, with and without the
/// environment, never panic.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let env = |name: &str| name.len().is_multiple_of(2).then(|| "x".to_string());
    for file in ["mcp-pin.toml", ".mcp.json", ".vscode/mcp.json", "claude_desktop_config.json", ".cursor/mcp.json"] {
        let _ = Config::parse_with(text, Path::new(file), Some(&env));
        let _ = Config::parse_with(text, Path::new(file), None);
    }
}

/// The diff engine, on `[before, after]` surfaces (`{"tools": [...], "serverInfo": ...}`, as in
/// `tests/cases`); any other JSON value is diffed against itself.
pub fn diff(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let (a, b) = match &v {
        Value::Array(pair) if pair.len() == 2 => (pair[0].clone(), pair[1].clone()),
        _ => (v.clone(), v.clone()),
    };
    let (old, new) = (surface_from_json(&a), surface_from_json(&b));
    let changes = diff_surfaces(&old, &new);
    for c in &changes {
        assert!(crate::rules::lookup(c.rule).is_some(), "rule {} is not in the catalogue", c.rule);
        assert!(!crate::diff::text::has_hidden(&c.message), "raw hidden character in {:?}", c.message);
        assert!(!c.message.contains('\n'), "message is not one line: {:?}", c.message);
    }
    assert_eq!(changes, diff_surfaces(&old, &new), "not deterministic");
    let order: Vec<_> = changes.iter().map(|c| (&c.tool, &c.pointer, &c.rule)).collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "not ordered by (tool, pointer, rule)");
    // A surface that went through the lockfile's writer is the same surface.
    for s in [&old, &new] {
        let mut rewritten = s.clone();
        for tool in rewritten.tools.values_mut() {
            *tool = serde_json::from_str(&crate::json::to_canonical_string(tool)).expect("canonical JSON parses");
        }
        let d = diff_surfaces(s, &rewritten);
        assert!(d.is_empty(), "the lockfile writer changed the meaning: {d:?}");
    }
}

/// Argument synthesis for the probes, on an arbitrary `inputSchema` (alone and as a required
/// property), never panics; what it returns is an object. The candidate argument sets made from
/// it (its values read as descriptions, listed values and a pin too) never panic either.
pub fn synth(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let _ = crate::probe::synthesize_args(&v);
    let wrapped = json!({"type": "object", "properties": {"a": v}, "required": ["a"]});
    if let Ok(smallest) = crate::probe::synthesize_args(&wrapped) {
        let mut known = crate::probe::candidates::Known::default();
        known.listed_by(
            "list_a",
            &json!({"structuredContent": v, "content": [{"type": "text", "text": v.to_string()}]}),
        );
        let def = json!({"name": "read_a_file", "description": v.to_string(), "inputSchema": wrapped});
        for set in crate::probe::candidates::argument_sets("read_a_file", &def, &known, &smallest) {
            let _ = crate::probe::candidates::ArgSet::from_pin(&set.to_pin(2));
            let _ = crate::probe::candidates::replay(set, &def, &known, &smallest);
        }
    }
    let _ = crate::probe::candidates::ArgSet::from_pin(&v);
    if let Some(text) = v.as_str() {
        let _ = crate::probe::candidates::described::examples(text);
    }
}

/// `report merge` on arbitrary JSON reports never panics, and merging a merged report again
/// changes nothing.
pub fn merge(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let reports = match v {
        Value::Array(a) => a,
        other => vec![other],
    };
    let Ok(merged) = crate::report::merge_json(&reports, None) else {
        return;
    };
    let json = crate::report::json::to_value(&merged);
    let again = crate::report::merge_json(std::slice::from_ref(&json), None).expect("a merged report merges");
    assert_eq!(crate::report::json::to_value(&again), json, "merge is idempotent");
}
