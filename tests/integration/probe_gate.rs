//! What a probe sends and pins (RULES.md, "What a probe may send and pin", "Steady"), end to end
//! against the fixture server: one gate every argument set passes just before it is sent
//! (`src/probe/candidates/gate.rs`), whatever produced it.

use crate::common;

use common::*;
use serde_json::{json, Value};

fn ro(name: &str, props: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": format!("Tool {name}."),
        "inputSchema": {"type": "object", "properties": props, "required": required},
        "annotations": {"readOnlyHint": true}
    })
}

/// A config that starts the fixture on `surface.json` by a relative path, in the project folder:
/// the same config checks the same in a copy of the project anywhere.
fn relative_config(p: &Project) {
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.fx]\ncommand = {:?}\nargs = [\"--surface\", \"surface.json\"]\ntimeout = \"10s\"\n",
            fixture_bin()
        ),
    );
}

/// The project `p` copied to a folder elsewhere (canonical), with its surface rewritten by
/// `surface` for that folder: what a pull request's checkout on another machine is. The
/// temporary folder is returned with it (the copy lives as long as it).
fn copied_elsewhere(
    p: &Project,
    surface: impl Fn(&std::path::Path) -> Value,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let there = tempfile::tempdir().unwrap();
    let copy = there.path().join("elsewhere");
    std::fs::create_dir_all(&copy).unwrap();
    let cp =
        std::process::Command::new("cp").arg("-a").arg(format!("{}/.", p.dir.path().display())).arg(&copy).status();
    assert!(cp.unwrap().success());
    let copy = copy.canonicalize().unwrap();
    std::fs::write(copy.join("surface.json"), serde_json::to_string_pretty(&surface(&copy)).unwrap()).unwrap();
    (there, copy)
}

/// `mcp-pin check --format json` in `dir`, which must pass: its report.
fn check_passes_in(dir: &std::path::Path) -> Value {
    let out = std::process::Command::new(pin_bin())
        .args(["check", "--format", "json"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.status.code(), Some(0), "{report:#}\n{}", String::from_utf8_lossy(&out.stderr));
    report
}

/// Class 1: a line of a file the sandbox withholds (a git-ignored `.env`, a `*.key`) is never a
/// candidate, and never pinned, even when a read-only tool lists the file and another asks for
/// text to find in the file it names (a line of that file is the search's first guess). The
/// tool accepts only the withheld line. With `gate::is_withheld` made to withhold nothing and
/// `gate::withheld_values` made empty (checked), `deploy.key` is the path, its line is sent and
/// pinned in clear (`from: file text`).
#[test]
fn a_line_of_a_withheld_file_is_never_sent_or_pinned() {
    let p = Project::new();
    p.write(".gitignore", ".env\n");
    let line = "MY_SETTING=plainvalue-7f3a9c";
    p.write(".env", &format!("{line}\n"));
    p.write("deploy.key", &format!("{line}\n"));
    p.write("notes.md", "# Notes\n");
    let listed: Vec<String> =
        [".env", "deploy.key", "notes.md"].iter().map(|f| p.path(f).display().to_string()).collect();
    let surface = json!({
        "tools": [
            ro("list_files", json!({}), &[]),
            ro("search_file", json!({
                "path": {"type": "string", "description": "Path of the file to search"},
                "search_text": {"type": "string", "description": "Text to find"}
            }), &["path", "search_text"])
        ],
        "calls": {
            "list_files": {"result": {"content": [{"type": "text", "text": listed.join("\n")}]}},
            "search_file": {
                "exists": ["path"],
                "accepts": {"search_text": [line]},
                "refusalTexts": {"search_text": "search_text '{value}' not found in the file"}
            }
        }
    });
    p.write_json("surface.json", &surface);
    relative_config(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock = p.read("mcp.lock");
    assert!(!lock.contains("plainvalue"), "{lock}");
    assert!(!lock.contains(".env") && !lock.contains("deploy.key"), "{lock}");
    let (_, report) = p.check_json(&[]);
    assert!(!report.to_string().contains("plainvalue"), "{report:#}");
}

/// Class 2: a path inside the project that the server's own words give absolute ("…/project/repo")
/// is pinned relative to the project and resolved where `check` runs: locked in one folder and
/// checked in a copy elsewhere (the server now accepts only the copy's path), it passes. Without
/// the gate's path rule (`gate::admit` making such a path relative), the lock holds the first
/// folder's absolute path and the copy's `check` fails `call-failed`.
#[test]
fn a_path_the_server_names_absolute_is_pinned_relative_and_checks_in_another_folder() {
    let p = Project::new();
    // A hidden folder: no project entry offers it, only the server's words.
    std::fs::create_dir(p.path(".repo")).unwrap();
    p.write(".repo/README.md", "# repo\n");
    let surface = |repo: &str| {
        json!({
            "tools": [ro("git_status", json!({"repo_path": {"type": "string", "description": "Path to the repository"}}), &["repo_path"])],
            "calls": {"git_status": {
                "accepts": {"repo_path": [repo]},
                "refusalTexts": {"repo_path": format!("'{{value}}' is outside the repository; the repository is at '{repo}'")}
            }}
        })
    };
    let here = p.path(".repo").canonicalize().unwrap().display().to_string();
    p.write_json("surface.json", &surface(&here));
    relative_config(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pin = &pins(&p, "fx")["git_status"]["call"];
    assert_eq!(pin["args"], json!({"repo_path": ".repo"}), "{pin:#}");
    assert_eq!(pin["relative"], json!(["/repo_path"]), "{pin:#}");
    let root = p.dir.path().canonicalize().unwrap().display().to_string();
    assert!(!p.read("mcp.lock").contains(&root), "{}", p.read("mcp.lock"));
    // The project, copied to another path: the server there takes only its own repository.
    let (_there, copy) = copied_elsewhere(&p, |c| surface(&c.join(".repo").display().to_string()));
    let report = check_passes_in(&copy);
    assert_eq!(probe(&report, "git_status", "call")["outcome"], "pass", "{report:#}");
}

/// Class 2, the form: "a path inside the project … is sent in the form the server takes
/// (relative to the folder it works in where it accepts that, which is the form to try first,
/// absolute where it asks for one)". `read_rel` refuses an absolute path (as a server confined
/// to its folder may), `read_abs` takes only an absolute one. Both pin `notes.md`; `read_rel`
/// passes on its first call and its pin says the path went relative, `read_abs` on the absolute
/// form tried right after. A copy of the project elsewhere checks the same. Without
/// `ArgSet::send` (every path sent absolute, as before), `read_rel` is refused and the test fails
/// (checked).
#[test]
fn a_path_goes_relative_first_and_absolute_where_the_server_asks() {
    let p = Project::new();
    p.write("notes.md", "# Notes\n");
    let surface = |root: &std::path::Path| {
        let abs = root.join("notes.md").display().to_string();
        let path = json!({"type": "string", "description": "Path of the .md file to read"});
        json!({
            "tools": [ro("read_rel", json!({"path": path}), &["path"]), ro("read_abs", json!({"path": path}), &["path"])],
            "calls": {
                "read_rel": {"exists": ["path"], "taken": {"path": [abs]},
                             "refusalTexts": {"path": "absolute paths are not allowed: '{value}'"}},
                "read_abs": {"accepts": {"path": [abs]},
                             "refusalTexts": {"path": "path must be absolute: '{value}'"}}
            }
        })
    };
    let root = p.dir.path().canonicalize().unwrap();
    p.write_json("surface.json", &surface(&root));
    relative_config(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = pins(&p, "fx");
    let (rel, abs) = (&pins["read_rel"]["call"], &pins["read_abs"]["call"]);
    assert_eq!(rel["args"], json!({"path": "notes.md"}), "{pins:#}");
    assert_eq!(rel["sent"], "relative", "{pins:#}");
    assert_eq!(rel["tried"], Value::Null, "the relative form first: {pins:#}");
    assert_eq!(abs["args"], json!({"path": "notes.md"}), "{pins:#}");
    assert_eq!(abs["sent"], Value::Null, "{pins:#}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("probe of `read_rel` passed") && err.contains("probe of `read_abs` passed"), "{err}");
    assert!(!p.read("mcp.lock").contains(&root.display().to_string()), "{}", p.read("mcp.lock"));
    // The project elsewhere: each server takes what it takes there.
    let (_there, copy) = copied_elsewhere(&p, surface);
    let report = check_passes_in(&copy);
    for t in ["read_rel", "read_abs"] {
        assert_eq!(probe(&report, t, "call")["outcome"], "pass", "{t}: {report:#}");
    }
}

/// Class 3: the server's own program (`sh …/dist/server.sh`, as `node …/dist/index.js`) and its
/// installation are never candidates: a reader of files gets the project's file, not the script.
/// The tool's words name no kind of file, so "a file named on the command line" would come
/// first. With the `own` filter of `Paths::scan_server` and `Paths::is_own` taken out (checked),
/// the script is offered first, read, and pinned by its absolute path.
#[test]
#[cfg(unix)]
fn the_servers_own_program_is_never_a_candidate() {
    let p = Project::new();
    std::fs::create_dir(p.path("docs")).unwrap();
    p.write("docs/guide.md", "# guide\n");
    let install = tempfile::tempdir().unwrap();
    std::fs::create_dir(install.path().join("dist")).unwrap();
    std::fs::write(install.path().join("package.json"), "{\"name\": \"doc-server\"}\n").unwrap();
    let script = install.path().join("dist/server.sh");
    std::fs::write(&script, format!("#!/bin/sh\nexec {:?} --surface surface.json\n", fixture_bin())).unwrap();
    let surface = json!({
        "tools": [ro("read_file", json!({"path": {"type": "string", "description": "Path of the file to read"}}), &["path"])],
        "calls": {"read_file": {"exists": ["path"]}}
    });
    p.write_json("surface.json", &surface);
    p.write(
        "mcp-pin.toml",
        &format!("[servers.fx]\ncommand = \"sh\"\nargs = [{:?}]\ntimeout = \"10s\"\n", script.display().to_string()),
    );
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = pins(&p, "fx");
    let call = &pins["read_file"]["call"];
    assert_ne!(call["from"]["path"], "command line", "{call:#}");
    assert!(!pins.to_string().contains("server.sh"), "{pins:#}");
    assert_eq!(call["relative"], json!(["/path"]), "{call:#}");
}

/// Class 4: one gate for every set, whatever produced it: a value the server's words offer for a
/// leaf inside an object argument (`options.dir`: "Try '/'") is refused as it would be for a
/// first set (the root folder). The tool accepts only `/`, so without the gate in `search.rs`
/// (the nested leaves of `words::sets_from_rejection` checked only for secrets), `/` is sent and
/// pinned.
#[test]
fn a_value_the_servers_words_put_in_a_nested_leaf_passes_the_same_gate() {
    let p = Project::new();
    let tool = ro(
        "list_dir",
        json!({"options": {"type": "object", "properties": {"dir": {"type": "string"}}, "required": ["dir"]}}),
        &["options"],
    );
    let surface = json!({
        "tools": [tool],
        "calls": {"list_dir": {
            "accepts": {"/options/dir": ["/"]},
            "refusalTexts": {"/options/dir": "dir '{value}' not found. Try '/'"}
        }}
    });
    p.write_json("surface.json", &surface);
    relative_config(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = pins(&p, "fx");
    assert_ne!(pins["list_dir"]["call"]["args"]["options"]["dir"], "/", "{pins:#}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("probe of `list_dir` passed"), "{err}");
}

/// Class 5: a time value a listing gives (`createdAt`) is never offered as a name, and an empty
/// string is the last candidate for an id, never the first. Without `listing::time_or_state`,
/// `open_item` is sent the timestamp first (`tried: 2`); without the empty string moved last in
/// `property_candidates`, `get_by_id` is sent `""` first (`tried: 2`).
#[test]
fn a_timestamp_is_no_name_and_an_empty_id_comes_last() {
    let p = Project::new();
    let surface = json!({
        "tools": [
            ro("list_items", json!({}), &[]),
            ro("open_item", json!({"name": {"type": "string"}}), &["name"])
        ],
        "calls": {
            "list_items": {"result": {"content": [{"type": "text", "text": "[{\"createdAt\": \"2026-12-07T10:00:00Z\", \"title\": \"widget\"}]"}]}},
            "open_item": {"accepts": {"name": ["widget"]}}
        }
    });
    p.write_json("surface.json", &surface);
    relative_config(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = pins(&p, "fx");
    assert_eq!(pins["open_item"]["call"]["args"], json!({"name": "widget"}), "{pins:#}");
    assert_eq!(pins["open_item"]["call"]["tried"], Value::Null, "the timestamp was tried first: {pins:#}");

    let p = Project::new();
    let surface = json!({
        "tools": [ro("get_by_id", json!({"record_id": {"type": "string"}}), &["record_id"])],
        "calls": {"get_by_id": {"accepts": {"record_id": ["a"]}}}
    });
    p.write_json("surface.json", &surface);
    relative_config(&p);
    let out = p.run(&["lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let pins = common::pins(&p, "fx");
    assert_eq!(pins["get_by_id"]["call"]["args"], json!({"record_id": "a"}), "{pins:#}");
    assert_eq!(pins["get_by_id"]["call"]["tried"], Value::Null, "the empty id was tried first: {pins:#}");
}

/// Class 6: a probe's `tools/call` carries no `progressToken` (rmcp stamps one on every request),
/// over stdio and Streamable HTTP. The fixture's `refusesProgressToken` tool fails a call that
/// has one, as a real server's load tool did; `lock` and `check` pass. With
/// `client::line_without_progress_token` taken out of the stdio transport (checked), `load`
/// answers "unexpected progressToken" and `lock` says its probe failed; the same for
/// `without_progress_token` in the HTTP client.
#[test]
fn a_probe_call_carries_no_progress_token() {
    let surface = json!({
        "tools": [ro("load", json!({"q": {"type": "string"}}), &[])],
        "calls": {"load": {"refusesProgressToken": true}}
    });
    for http in [false, true] {
        let p = Project::new();
        p.write_json("surface.json", &surface);
        let _server = if http {
            let server = HttpFixture::start(&p.path("surface.json"), &[]);
            p.write("mcp-pin.toml", &format!("[servers.fx]\nurl = \"{}\"\ntimeout = \"10s\"\n", server.url));
            Some(server)
        } else {
            relative_config(&p);
            None
        };
        let out = p.run(&["lock"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("probe of `load` passed"), "http {http}: {err}");
        let (code, report) = p.check_json(&[]);
        assert_eq!(code, 0, "{report:#}");
        assert_eq!(probe(&report, "load", "call")["outcome"], "pass", "http {http}: {report:#}");
    }
}

/// Steady across machines (issue 42, "Done when"): a real git server (`mcp-server-git` of the
/// venv `.ci/run` makes) locked in one folder; the project copied to another path, edited and
/// committed there as a pull request would, then checked with another HOME and time zone: exit
/// 0 and no probe failure. (`@cyanheads/git-mcp-server` is not among them yet: its `git_merge`
/// and `git_rebase` fail at such a check for reasons of their own, issue 42's class 5.)
#[test]
fn a_lock_taken_in_one_folder_checks_in_another_with_another_home_and_time_zone() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let git_py = root.join("py/bin/mcp-server-git");
    let have_git = std::process::Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success());
    if !git_py.is_file() || !have_git {
        skip("target/py/bin/mcp-server-git or git not installed (.ci/run installs it)");
        return;
    }
    let a = tempfile::tempdir().unwrap();
    let project = a.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    crate::real_probes::git_project(&project);
    let toml = format!(
        "[servers.git]\ncommand = {:?}\nargs = [\"--repository\", \".\"]\ncwd = \"project\"\ntimeout = \"60s\"\n",
        git_py.display().to_string()
    );
    std::fs::write(a.path().join("mcp-pin.toml"), toml).unwrap();
    let run = |dir: &std::path::Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]| {
        let mut cmd = std::process::Command::new(pin_bin());
        cmd.args(args).current_dir(dir).env("NO_COLOR", "1").env_remove("CI").env_remove("GITHUB_ACTIONS");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    let out = run(a.path(), &["lock"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock = std::fs::read_to_string(a.path().join("mcp.lock")).unwrap();
    let here = a.path().canonicalize().unwrap().display().to_string();
    let probes: Value = serde_json::from_str::<Value>(&lock).unwrap()["servers"]
        .as_object()
        .unwrap()
        .values()
        .map(|s| s["probes"].clone())
        .collect();
    assert!(!probes.to_string().contains(&here), "a path of the machine is pinned: {probes:#}");
    // Another folder, another HOME and time zone; the project edited and committed.
    let b = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cp = std::process::Command::new("cp").arg("-a").arg(format!("{}/.", a.path().display())).arg(b.path()).status();
    assert!(cp.unwrap().success());
    let theirs = b.path().join("project");
    std::fs::write(theirs.join("docs/guide.md"), "# Guide\n\nEdited in the pull request.\n").unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=pr", "-c", "user.email=pr@example.invalid"])
            .args(args)
            .current_dir(&theirs)
            .env("HOME", home.path())
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["checkout", "-q", "-b", "feature"]);
    git(&["commit", "-qam", "edit the guide"]);
    let out = run(
        b.path(),
        &["check", "--format", "json"],
        &[("HOME", home.path().as_os_str()), ("TZ", std::ffi::OsStr::new("Asia/Tokyo"))],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let failed: Vec<&Value> = report["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["probes"].as_array().into_iter().flatten())
        .filter(|p| p["outcome"] == "fail")
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(out.status.code(), Some(0), "{report:#}\n{}", String::from_utf8_lossy(&out.stderr));
}
