//! Never aimed at the machine (RULES.md, "Arguments that reach the tool"): no candidate targets
//! mcp-pin, the server or the machine itself. A process id of 0, 1 or below (0 is the caller's
//! own process group, -1 every process it may signal), mcp-pin's own process or its parent; the
//! root or home folder; a device or the kernel's own files. A kill tool sent `pid: 0` once took
//! down its own server's process group, and the tool called beside it was never judged.

use std::path::Path;

use serde_json::Value;

/// A process id no process has (Linux's `pid_max` is at most 2^22), offered to a property that
/// takes one, so the call reaches the tool's code and harms nothing.
pub const NO_PROCESS: i64 = 4_194_305;

/// Whether property `prop` (its schema `schema`) takes a process id: its name says so (`pid`,
/// `processId`, `target_pid`, `pgid`), or its description speaks of a process id.
pub fn takes_process_id(prop: &str, schema: &Value) -> bool {
    let words = words(prop);
    let named = words.iter().any(|w| matches!(w.as_str(), "pid" | "pgid" | "ppid" | "pids"))
        || words.windows(2).any(|w| w[0] == "process" && w[1] == "id")
        || words == ["process"];
    let desc = schema.get("description").and_then(Value::as_str).unwrap_or("").to_lowercase();
    named || desc.contains("process id") || desc.contains("pid") && desc.contains("process")
}

/// The words of a name, lowercased: `targetPid`, `target_pid` and `TARGET-PID` are `target pid`.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            out.extend((!cur.is_empty()).then(|| std::mem::take(&mut cur)));
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    out.extend((!cur.is_empty()).then_some(cur));
    out
}

/// Why `value` for property `prop` would aim the call at the machine, or `None`.
pub fn aimed_at_machine(prop: &str, schema: &Value, value: &Value, home: Option<&Path>) -> Option<&'static str> {
    match value {
        Value::Array(a) => a.iter().find_map(|v| aimed_at_machine(prop, schema, v, home)),
        Value::Object(m) => m.iter().find_map(|(k, v)| aimed_at_machine(k, &Value::Null, v, home)),
        Value::Number(n) if takes_process_id(prop, schema) => n.as_i64().and_then(own_or_every_process),
        Value::String(s) if takes_process_id(prop, schema) && s.trim().parse::<i64>().is_ok() => {
            own_or_every_process(s.trim().parse().ok()?)
        }
        Value::String(s) => machine_path(s, home),
        _ => None,
    }
}

fn own_or_every_process(pid: i64) -> Option<&'static str> {
    let own = i64::from(std::process::id());
    let parent = i64::from(std::os::unix::process::parent_id());
    if pid <= 1 {
        Some("a process id of 1 or less (the caller's own group, init, or every process)")
    } else if pid == own || pid == parent {
        Some("mcp-pin's own process")
    } else {
        None
    }
}

/// The root folder, the home folder, a device or the kernel's own files.
fn machine_path(s: &str, home: Option<&Path>) -> Option<&'static str> {
    let t = s.trim();
    let t = t.strip_prefix("file://").unwrap_or(t);
    if !t.is_empty() && t.chars().all(|c| c == '/') {
        return Some("the root folder");
    }
    let trimmed = t.trim_end_matches('/');
    if trimmed == "~" || home.is_some_and(|h| Path::new(trimmed) == h) {
        return Some("the home folder");
    }
    for dir in ["/dev", "/proc", "/sys", "/boot"] {
        if trimmed == dir || trimmed.starts_with(&format!("{dir}/")) {
            return Some("a device or the kernel's own files");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn process_ids_of_the_caller_init_and_everyone_are_refused() {
        let s = json!({"type": "integer"});
        for v in [json!(0), json!(1), json!(-1), json!(i64::from(std::process::id())), json!([5, 0]), json!("0")] {
            assert!(aimed_at_machine("pid", &s, &v, None).is_some(), "{v}");
        }
        for p in ["processId", "target_pid", "childPID", "PGID", "process_id"] {
            assert!(aimed_at_machine(p, &s, &json!(0), None).is_some(), "{p}");
        }
        let described = json!({"type": "integer", "description": "The process ID to terminate"});
        assert!(aimed_at_machine("target", &described, &json!(0), None).is_some());
        assert_eq!(aimed_at_machine("pid", &s, &json!(NO_PROCESS), None), None);
        // A count, a page or a line number of 0 is no process id.
        for p in ["count", "page", "line", "offset", "limit", "rapid"] {
            assert_eq!(aimed_at_machine(p, &s, &json!(0), None), None, "{p}");
        }
    }

    #[test]
    fn the_root_home_and_device_folders_are_refused() {
        let home = Path::new("/home/u");
        for v in ["/", "//", "file:///", "~", "/home/u", "/home/u/", "/dev/sda", "/proc/1/mem", "/sys"] {
            assert!(aimed_at_machine("path", &Value::Null, &json!(v), Some(home)).is_some(), "{v}");
        }
        for v in [".", "src", "/home/u/project", "/tmp/x", "a/b", "devices", "/device"] {
            assert_eq!(aimed_at_machine("path", &Value::Null, &json!(v), Some(home)), None, "{v}");
        }
        assert!(aimed_at_machine("args", &Value::Null, &json!({"dir": "/"}), None).is_some());
    }
}
