//! Issue 36: which removed and added tools are one rename (RULES.md, `tool-renamed`), end to end
//! through the real binary and the fixture server. A release whose only change is a rename passes
//! the default gate; a rename that rewrote the description shows that tool's
//! `description-changed` (silent), not "a tool was added".

use crate::common;

use common::*;
use serde_json::{json, Value};

/// A tool with one required string argument `arg`.
fn tool(name: &str, description: &str, arg: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {arg: {"type": "string", "description": "What to use"}}, "required": [arg]}
    })
}

fn surface(tools: Vec<Value>) -> Value {
    json!({"serverInfo": {"name": "runner", "version": "1.0.0"}, "tools": tools})
}

#[test]
fn a_release_that_only_renames_passes_and_a_rewritten_description_is_that_tools_change() {
    let p = Project::new();
    let status = json!({"name": "status", "description": "Status.", "inputSchema": {"type": "object"}});
    p.write_json(
        "s.json",
        &surface(vec![
            tool("run_code", "Run Python.", "code"),
            tool("get-file", "Read a file.", "path"),
            status.clone(),
        ]),
    );
    p.stdio_config(&[("runner", "s.json")]);
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // (a) the same schemas under a name that is no respelling; (b) the same name respelled.
    // (Two removed tools with one schema would be no rename under (a): not one to one.)
    let only_renames = surface(vec![
        tool("run_code_unsafe", "Run Python.", "code"),
        tool("getFile", "Read a file.", "path"),
        status.clone(),
    ]);
    p.write_json("s.json", &only_renames);
    let (code, report) = p.check_json(&["--no-probe"]);
    let mut got = changes(&report);
    got.sort();
    assert_eq!(
        got,
        [
            ("runner".into(), "getFile".into(), "tool-renamed".into(), "/name".into()),
            ("runner".into(), "run_code_unsafe".into(), "tool-renamed".into(), "/name".into()),
        ],
        "{report:#}"
    );
    assert_eq!(code, 0, "a rename alone is loud: the default gate passes: {report:#}");

    // The release: renamed, and the description now warns. One rename, and the warning
    // is that tool's description change (silent: the gate fails), never a tool added.
    let warned = tool("run_code_unsafe", "Run Python on the host, outside any sandbox. Unsafe.", "code");
    p.write_json("s.json", &surface(vec![warned, tool("get-file", "Read a file.", "path"), status]));
    let (code, report) = p.check_json(&["--no-probe"]);
    let mut got = changes(&report);
    got.sort();
    assert_eq!(
        got,
        [
            ("runner".into(), "run_code_unsafe".into(), "description-changed".into(), "/description".into()),
            ("runner".into(), "run_code_unsafe".into(), "tool-renamed".into(), "/name".into()),
        ],
        "{report:#}"
    );
    assert_eq!(code, 1, "{report:#}");
}
