//! Files from a pull request (issue #22, 5): a key twice in any JSON or TOML mcp-pin reads is an
//! error naming the key and its line, and every file mcp-pin reads must be a regular file under a
//! size cap (`report merge` on a FIFO or `/dev/zero` ends at once with an error).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::*;

fn locked_project() -> Project {
    let p = Project::new();
    p.write_json(
        "s.json",
        &json!({"tools": [
            {"name": "a", "description": "A.", "inputSchema": {"type": "object"}},
            {"name": "t", "description": "T.", "inputSchema": {"type": "object"}}
        ]}),
    );
    p.stdio_config(&[("s", "s.json")]);
    let out = p.run(&["lock", "--no-probe"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    p
}

/// The 1-based line of the first line of `text` that contains `needle` after line `from`.
fn line_with(text: &str, needle: &str, from: usize) -> usize {
    text.lines().enumerate().skip(from).find(|(_, l)| l.contains(needle)).map(|(i, _)| i + 1).unwrap()
}

#[test]
fn a_lockfile_with_a_key_twice_is_refused_with_the_key_and_line() {
    let p = locked_project();
    let lock = p.read("mcp.lock");
    // A second `"t"` entry holding another definition, after the first.
    let first = line_with(&lock, "        \"t\": {", 0);
    let second_def = "        \"t\": {\n          \"description\": \"Delete everything.\",\n          \"inputSchema\": {\"type\": \"object\"},\n          \"name\": \"t\"\n        },\n";
    let mut lines: Vec<&str> = lock.lines().collect();
    lines.insert(first - 1, second_def.trim_end_matches('\n'));
    let doubled = lines.join("\n") + "\n";
    p.write("mcp.lock", &doubled);
    let dup_line = line_with(&doubled, "        \"t\": {", first);
    for args in [&["check", "--no-probe"][..], &["diff", "mcp.lock", "mcp.lock"], &["lock", "--no-probe"]] {
        let out = p.run(args);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains("duplicate key `t`"), "{args:?}: {t}");
        assert!(t.contains(&format!("line {dup_line}")), "{args:?}: the line of the second key ({dup_line}): {t}");
    }
    // A key twice inside a tool: found when the tool is read, with its line in the lock.
    let inner = lock.replacen(
        "\"description\": \"T.\",",
        "\"description\": \"T.\",\n          \"description\": \"Delete everything.\",",
        1,
    );
    p.write("mcp.lock", &inner);
    let inner_line = line_with(&inner, "Delete everything.", 0);
    p.write("old.lock", &lock);
    for args in [&["check", "--no-probe"][..], &["diff", "old.lock", "mcp.lock"]] {
        let out = p.run(args);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains("duplicate key `description`"), "{args:?}: {t}");
        assert!(t.contains(&format!("line {inner_line}")), "{args:?}: line {inner_line}: {t}");
    }
}

#[test]
fn a_config_with_a_key_twice_is_refused_with_the_key_and_line() {
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": []}));
    let fixture = fixture_bin();
    // A client config: the second `s` would replace the first.
    p.write(
        ".mcp.json",
        &format!(
            "{{\n  \"mcpServers\": {{\n    \"s\": {{\"command\": {fixture:?}, \"args\": [\"--surface\", \"s.json\"]}},\n    \"s\": {{\"command\": \"sh\", \"args\": [\"-c\", \"exit 1\"]}}\n  }}\n}}\n"
        ),
    );
    let out = p.run(&["lock"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("duplicate key `s`") && t.contains(".mcp.json:4:"), "the key and its line: {t}");
    // mcp-pin.toml: the TOML parser refuses a key defined twice, with its line.
    p.write(
        "mcp-pin.toml",
        &format!("[servers.s]\ncommand = {fixture:?}\nargs = [\"--surface\", \"s.json\"]\ncommand = \"sh\"\n"),
    );
    let out = p.run(&["lock"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("duplicate key `command`") && t.contains("mcp-pin.toml:4:"), "the key and its line: {t}");
}

#[test]
#[cfg(unix)]
fn report_merge_reads_only_regular_files_of_bounded_size() {
    let p = Project::new();
    p.write_json("a.json", &json!({"servers": []}));
    let made = Command::new("mkfifo").arg(p.path("fifo.json")).status().is_ok_and(|s| s.success());
    std::os::unix::fs::symlink("/dev/zero", p.path("zero.json")).unwrap();
    let mut cases = vec![("zero.json", "device")];
    if made {
        cases.push(("fifo.json", "FIFO"));
    } else {
        skip("no mkfifo here: the FIFO case is not run");
    }
    for (file, what) in cases {
        let start = Instant::now();
        let out = p.run(&["report", "merge", "a.json", file]);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(t.contains(&format!("cannot read report {file}")) && t.contains(what), "{t}");
        assert!(start.elapsed() < Duration::from_secs(20), "refused at once, not read");
    }
    // A regular file over the cap is refused by its size, before it is read.
    let f = std::fs::File::create(p.path("big.json")).unwrap();
    f.set_len(mcp_pin::report::MAX_REPORT + 1).unwrap();
    let out = p.run(&["report", "merge", "big.json"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("cannot read report big.json") && t.contains("over the limit"), "{t}");
}
