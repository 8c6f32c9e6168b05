//! Files from a pull request (issue #22, 5): a key twice in any JSON or TOML mcp-pin reads is an
//! error naming the key and its line, and every file mcp-pin reads must be a regular file under a
//! size cap (`report merge` on `/dev/zero` ends at once with an error; a pipe it is handed on its
//! command line, `/dev/stdin` or a FIFO, is read as it comes under the same cap).

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
    std::os::unix::fs::symlink("/dev/zero", p.path("zero.json")).unwrap();
    std::fs::create_dir(p.path("dir.json")).unwrap();
    for (file, what) in [("zero.json", "device"), ("dir.json", "directory")] {
        let start = Instant::now();
        let out = p.run(&["report", "merge", "a.json", file]);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(t.contains(&format!("cannot read report {file}")) && t.contains(what), "{t}");
        assert!(start.elapsed() < Duration::from_secs(20), "refused at once, not read");
    }
    // A pipe named on the command line is read as it comes (capped while it is read):
    // `report merge /dev/stdin` and a FIFO with its writer (issue #31, 5).
    let report = r#"{"failOn": "loud", "servers": []}"#;
    let mut child = Command::new(pin_bin())
        .args(["report", "merge", "a.json", "/dev/stdin", "--format", "json"])
        .current_dir(p.path(""))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), report.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let merged: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(merged["failOn"], "loud", "the piped report was read: {merged}");
    if Command::new("mkfifo").arg(p.path("fifo.json")).status().is_ok_and(|s| s.success()) {
        let fifo = p.path("fifo.json");
        let writer = std::thread::spawn(move || std::fs::write(fifo, report).unwrap());
        let out = p.run(&["report", "merge", "a.json", "fifo.json", "--format", "json"]);
        writer.join().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let merged: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(merged["failOn"], "loud", "{merged}");
    } else {
        skip("no mkfifo here: the FIFO case is not run");
    }
    // A regular file over the cap is refused by its size, before it is read.
    let f = std::fs::File::create(p.path("big.json")).unwrap();
    f.set_len(mcp_pin::report::MAX_REPORT + 1).unwrap();
    let out = p.run(&["report", "merge", "big.json"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("cannot read report big.json") && t.contains("over the limit"), "{t}");
}

/// `mcp-pin ARGS` in `p`, killed if it has not ended within `limit` (a run that would read an
/// endless file or block on a FIFO fails the test instead of hanging it).
#[cfg(target_os = "linux")]
fn run_within(p: &Project, args: &[&str], limit: Duration) -> (Option<i32>, String, Duration) {
    use std::io::Read;
    let start = Instant::now();
    let mut child = Command::new(pin_bin())
        .args(args)
        .current_dir(p.path(""))
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("CI")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let drain_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let drain_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcp-pin {args:?} did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = format!("{}{}", drain_out.join().unwrap(), drain_err.join().unwrap());
    (code, text, start.elapsed())
}

/// Issue #31, 5: every file mcp-pin reads because of the project's content goes through one
/// bounded path (a regular file, or a refusal naming it). The ignore files the sandbox's scratch
/// copy reads (the `ignore` crate opens them itself) are checked first
/// (`files::vet_ignore_files`): a committed `.gitignore` linked to `/dev/zero` made `lock` abort
/// on a 2 GiB allocation, and a FIFO as a folder's `.gitignore` stalled it for good. With the
/// checks taken out of `sandbox::scratch::copy_project` (done once by hand, each in turn) the
/// test fails: without the walk's check the FIFO case runs into `run_within`'s limit; without
/// the check of the project folder (run under a 3 GB address-space limit) `lock` aborts with
/// "memory allocation of 4294967296 bytes failed". A dotenv file that is a FIFO is refused the
/// same way (`files::read_regular`).
#[test]
#[cfg(target_os = "linux")]
fn an_ignore_file_or_a_dotenv_file_that_is_no_file_is_refused_by_name_at_once() {
    if let Err(why) = mcp_pin::sandbox::linux::sandbox_available() {
        skip(&format!("no sandbox on this machine: {why}"));
        return;
    }
    let surface = json!({"tools": [
        {"name": "write_note", "annotations": {"readOnlyHint": false}, "inputSchema": {"type": "object"}}
    ]});
    let have_mkfifo = |path: &std::path::Path| Command::new("mkfifo").arg(path).status().is_ok_and(|s| s.success());
    // The project's own `.gitignore` linked to /dev/zero, and a folder's `.gitignore` a FIFO.
    type Plant<'a> = &'a dyn Fn(&Project) -> bool;
    let cases: [(&str, Plant); 2] = [
        (".gitignore", &|p: &Project| std::os::unix::fs::symlink("/dev/zero", p.path(".gitignore")).is_ok()),
        ("sub/.gitignore", &|p: &Project| {
            std::fs::create_dir(p.path("sub")).unwrap();
            have_mkfifo(&p.path("sub/.gitignore"))
        }),
    ];
    for (file, plant) in cases {
        let p = Project::new();
        p.write_json("s.json", &surface);
        p.stdio_config(&[("s", "s.json")]);
        if !plant(&p) {
            skip(&format!("{file} could not be made here: that case is not run"));
            continue;
        }
        let (code, t, took) = run_within(&p, &["lock"], Duration::from_secs(60));
        assert_eq!(code, Some(0), "the surface is pinned, the sandboxed probe is not made: {t}");
        let named = p.path(file).display().to_string();
        assert!(
            t.contains("no sandbox for this server's probes: cannot copy the project folder")
                && t.contains(&named)
                && t.contains("not a regular file"),
            "{file}: refused, naming the file: {t}"
        );
        assert!(t.contains("1 skipped (1 no sandbox)"), "never called bare: {t}");
        assert!(took < Duration::from_secs(20), "{file}: refused at once ({took:?})");
    }
    // A dotenv file that is a FIFO: the config is refused, naming it, without waiting on it.
    let p = Project::new();
    p.write_json("s.json", &surface);
    if !have_mkfifo(&p.path(".env")) {
        skip("no mkfifo here: the dotenv case is not run");
        return;
    }
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.s]\ncommand = {:?}\nargs = [\"--surface\", \"s.json\"]\nenv_file = \".env\"\ntimeout = \"10s\"\n",
            fixture_bin()
        ),
    );
    let (code, t, took) = run_within(&p, &["lock"], Duration::from_secs(60));
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("cannot read `env_file`") && t.contains(".env") && t.contains("FIFO"), "{t}");
    assert!(took < Duration::from_secs(20), "refused at once ({took:?})");
}
